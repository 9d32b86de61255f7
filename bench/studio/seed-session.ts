import { SpeakerDirectory } from '../../src/service/speakers/speaker-directory';
import { spectralVoiceMatcher } from '../../src/service/speakers/voice-matcher';
import { openDatabase } from '../../src/service/storage/database';
import { DataLayout } from '../../src/service/storage/files';
import { SqlProjectStore } from '../../src/service/storage/project-store';
import { SqliteSql } from '../../src/service/storage/sql/sqlite-sql';
import { SessionStore } from '../../src/service/storage/session-store';
import { tileTranscript } from './tile-transcript';

/**
 * Completes session `targetId` with the transcript of session `pieceId` tiled over the target's duration,
 * written with the service's own stores into a stopped service's data folder. The target's pending
 * transcription job is cancelled first, so a restarted service does not resume it and overwrite the seed.
 * Speakers are filed into the project as the transcribe job does on completion.
 */
export function seedTiledTranscript(
  dataDir: string,
  pieceId: string,
  targetId: string,
): { segments: number; words: number; tiles: number; pieceDuration: number } {
  const db = openDatabase(new DataLayout(dataDir).database);
  try {
    const sessions = new SessionStore(db);
    const piece = sessions.transcript(pieceId);
    const target = sessions.summary(targetId);
    if (!piece) throw new Error(`session ${pieceId} has no transcript`);
    if (!target) throw new Error(`session ${targetId} does not exist`);
    const tiled = tileTranscript(piece, target.duration);
    db.transaction(() => {
      db.prepare(
        "UPDATE jobs SET status = 'cancelled', finished_at = ? WHERE session_id = ? AND status IN ('queued', 'running')",
      ).run(new Date().toISOString(), targetId);
      sessions.complete(targetId, tiled);
    })();
    new SpeakerDirectory(db, new SqlProjectStore(new SqliteSql(db), db), sessions, spectralVoiceMatcher).enrol(targetId);
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
