import { SpeakerDirectory } from '../../src/service/speakers/speaker-directory';
import { spectralVoiceMatcher } from '../../src/service/speakers/voice-matcher';
import { openDatabase } from '../../src/service/storage/database';
import { DataLayout } from '../../src/service/storage/files';
import { openStores } from '../../src/service/storage/stores';
import { SqliteSql } from '../../src/service/storage/sql/sqlite-sql';
import { tileTranscript } from './tile-transcript';

/**
 * Completes session `targetId` with the transcript of session `pieceId` tiled over the target's duration,
 * written with the service's own stores into a stopped service's data folder. The target's pending
 * transcription job is cancelled first, so a restarted service does not resume it and overwrite the seed.
 * Speakers are filed into the project as the transcribe job does on completion.
 */
export async function seedTiledTranscript(
  dataDir: string,
  pieceId: string,
  targetId: string,
): Promise<{ segments: number; words: number; tiles: number; pieceDuration: number }> {
  const db = openDatabase(new DataLayout(dataDir).database);
  try {
    const database = openStores(new SqliteSql(db));
    const { sessions } = database;
    const piece = await sessions.transcript(pieceId);
    const target = await sessions.summary(targetId);
    if (!piece) throw new Error(`session ${pieceId} has no transcript`);
    if (!target) throw new Error(`session ${targetId} does not exist`);
    const tiled = tileTranscript(piece, target.duration);
    await database.transaction(async (stores) => {
      db.prepare(
        "UPDATE jobs SET status = 'cancelled', finished_at = ? WHERE session_id = ? AND status IN ('queued', 'running')",
      ).run(new Date().toISOString(), targetId);
      await stores.sessions.complete(targetId, tiled);
    });
    await new SpeakerDirectory(database, spectralVoiceMatcher).enrol(targetId);
    return {
      segments: tiled.segments.length,
      words: tiled.segments.reduce((n, s) => n + s.words.length, 0),
      tiles: Math.ceil(target.duration / piece.duration),
      pieceDuration: piece.duration,
    };
  } finally {
    db.close();
  }
}
