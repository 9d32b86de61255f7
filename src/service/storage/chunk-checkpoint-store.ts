import type { Sql } from './sql/sql';
import type { RecognizedSegment } from '../speech/types';

/**
 * The checkpoints of running transcriptions (`transcription_checkpoints`: each recognized chunk, by its start
 * and length; `transcription_stage_checkpoints`: the steps that are not per chunk — diarization's speech spans
 * and result, the chunk plan), per session and context (the recognition or diarization settings: a retry with
 * other settings must not reuse them). Written as the work goes, removed when the transcript is stored or the
 * session is deleted.
 */
export interface ChunkCheckpointStore {
  /** The chunk's segments, or null when it was not kept. `offset` in seconds (kept to the millisecond), `samples` its length. */
  chunk(sessionId: string, context: string, offset: number, samples: number): Promise<RecognizedSegment[] | null>;
  saveChunk(sessionId: string, context: string, offset: number, samples: number, segments: readonly RecognizedSegment[]): Promise<void>;
  stage<T>(sessionId: string, context: string, stage: string): Promise<T | null>;
  /** Replaces the step's value. */
  saveStage(sessionId: string, context: string, stage: string, value: unknown): Promise<void>;
  /** Chunks kept for the session, whatever their context. */
  count(sessionId: string): Promise<number>;
  /** The steps kept for the session, whatever their context ('diarization-speech', 'diarization', 'chunk-plan'). */
  stages(sessionId: string): Promise<string[]>;
  discard(sessionId: string): Promise<void>;
  /** Chunks and steps kept: the job's checkpoints, counted (a resumed job that adds to them got further). */
  keptWork(sessionId: string): Promise<number>;
}

const COUNT = 'SELECT count(*) AS n FROM transcription_checkpoints WHERE session_id = ?';
const STAGES = 'SELECT stage FROM transcription_stage_checkpoints WHERE session_id = ? ORDER BY stage DESC';

/** One implementation for both databases, in portable SQL over `Sql`. */
export class SqlChunkCheckpointStore implements ChunkCheckpointStore {
  constructor(private readonly sql: Sql) {}

  async keptWork(sessionId: string): Promise<number> {
    return Number((await this.sql.get<{ n: number }>(COUNT, [sessionId]))?.n ?? 0) + (await this.sql.all(STAGES, [sessionId])).length;
  }

  async chunk(sessionId: string, context: string, offset: number, samples: number): Promise<RecognizedSegment[] | null> {
    const row = await this.sql.get<{ segments_json: string }>(
      'SELECT segments_json FROM transcription_checkpoints WHERE session_id = ? AND context = ? AND offset_ms = ? AND samples = ?',
      [sessionId, context, Math.round(offset * 1000), samples],
    );
    return row ? (JSON.parse(row.segments_json) as RecognizedSegment[]) : null;
  }

  async saveChunk(sessionId: string, context: string, offset: number, samples: number, segments: readonly RecognizedSegment[]): Promise<void> {
    await this.sql.run(
      `INSERT INTO transcription_checkpoints (session_id, context, offset_ms, samples, segments_json) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (session_id, context, offset_ms, samples) DO UPDATE SET segments_json = excluded.segments_json`,
      [sessionId, context, Math.round(offset * 1000), samples, JSON.stringify(segments)],
    );
  }

  async stage<T>(sessionId: string, context: string, stage: string): Promise<T | null> {
    const row = await this.sql.get<{ value_json: string }>(
      'SELECT value_json FROM transcription_stage_checkpoints WHERE session_id = ? AND context = ? AND stage = ?',
      [sessionId, context, stage],
    );
    return row ? (JSON.parse(row.value_json) as T) : null;
  }

  async saveStage(sessionId: string, context: string, stage: string, value: unknown): Promise<void> {
    await this.sql.run(
      `INSERT INTO transcription_stage_checkpoints (session_id, context, stage, value_json) VALUES (?, ?, ?, ?)
       ON CONFLICT (session_id, context, stage) DO UPDATE SET value_json = excluded.value_json`,
      [sessionId, context, stage, JSON.stringify(value)],
    );
  }

  async count(sessionId: string): Promise<number> {
    return Number((await this.sql.get<{ n: number }>(COUNT, [sessionId]))?.n ?? 0);
  }

  async stages(sessionId: string): Promise<string[]> {
    return (await this.sql.all<{ stage: string }>(STAGES, [sessionId])).map((r) => r.stage);
  }

  async discard(sessionId: string): Promise<void> {
    await this.sql.transaction(async (tx) => {
      await tx.run('DELETE FROM transcription_checkpoints WHERE session_id = ?', [sessionId]);
      await tx.run('DELETE FROM transcription_stage_checkpoints WHERE session_id = ?', [sessionId]);
    });
  }
}
