import type { Db } from '../storage/database';
import type { DiarizationResult, RecognizedSegment, Recognizer, Span } from '../speech/types';
import type { DiarizationCheckpoints } from './diarization-checkpoints';
import type { ChunkPlan, ChunkPlanCheckpoints } from '../speech/pipeline/transcribe';

/**
 * Per-chunk checkpoints of a transcription: each chunk's recognized segments are kept as soon as they
 * are known, so a job interrupted by a crash or a stop recognizes only the chunks it had not finished.
 * Decoding, voice activity and chunking are deterministic, so the resumed run cuts the same chunks and
 * finds them by their start and length. Diarization needs the whole signal: its steps are checkpointed
 * whole (diarization-checkpoints.ts).
 */
export interface ChunkCheckpoints {
  get(offset: number, samples: number): RecognizedSegment[] | null;
  put(offset: number, samples: number, segments: RecognizedSegment[]): void;
  /** Where the chunking stood, so a resumed run does not run the VAD again over what it covered. */
  plan?: ChunkPlanCheckpoints;
}

/** The recognizer, answering from checkpoints where it can and checkpointing every new result. */
export function checkpointedRecognizer(inner: Recognizer, checkpoints: ChunkCheckpoints, onReuse?: () => void): Recognizer {
  return {
    id: inner.id,
    // Whisper writes its own text: the pipeline must not write sentences over it on a durable job either.
    writesText: inner.writesText,
    async recognize(pcm, options) {
      const offset = options?.offset ?? 0;
      const kept = checkpoints.get(offset, pcm.length);
      if (kept) {
        onReuse?.();
        return kept;
      }
      const segments = await inner.recognize(pcm, options);
      if (!options?.signal?.aborted) checkpoints.put(offset, pcm.length, segments);
      return segments;
    },
    close: () => inner.close(),
  };
}

/**
 * Checkpoints in the database, per session and recognition context (engine, language, prompt,
 * temperature): a retry with other settings must not reuse them. Removed when the transcript is stored.
 */
export class TranscriptionCheckpointStore {
  constructor(private readonly db: Db) {}

  for(sessionId: string, context: string): ChunkCheckpoints {
    return {
      get: (offset, samples) => {
        const row = this.db
          .prepare('SELECT segments_json FROM transcription_checkpoints WHERE session_id = ? AND context = ? AND offset_ms = ? AND samples = ?')
          .get(sessionId, context, Math.round(offset * 1000), samples) as { segments_json: string } | undefined;
        return row ? (JSON.parse(row.segments_json) as RecognizedSegment[]) : null;
      },
      put: (offset, samples, segments) => {
        this.db
          .prepare('INSERT OR REPLACE INTO transcription_checkpoints (session_id, context, offset_ms, samples, segments_json) VALUES (?, ?, ?, ?, ?)')
          .run(sessionId, context, Math.round(offset * 1000), samples, JSON.stringify(segments));
      },
      // One row, replaced as the run goes on (beside diarization's steps, under the recognition context).
      plan: {
        load: () => this.stage<ChunkPlan>(sessionId, context, 'chunk-plan'),
        save: (plan) => this.saveStage(sessionId, context, 'chunk-plan', plan),
      },
    };
  }

  /** Diarization's steps, per session and diarization context (the speaker-count hints). */
  diarization(sessionId: string, context: string): DiarizationCheckpoints {
    return {
      speech: () => this.stage<Span[]>(sessionId, context, 'diarization-speech'),
      saveSpeech: (spans) => this.saveStage(sessionId, context, 'diarization-speech', spans),
      result: () => this.stage<DiarizationResult>(sessionId, context, 'diarization'),
      saveResult: (result) => this.saveStage(sessionId, context, 'diarization', result),
    };
  }

  private stage<T>(sessionId: string, context: string, stage: string): T | null {
    const row = this.db
      .prepare('SELECT value_json FROM transcription_stage_checkpoints WHERE session_id = ? AND context = ? AND stage = ?')
      .get(sessionId, context, stage) as { value_json: string } | undefined;
    return row ? (JSON.parse(row.value_json) as T) : null;
  }

  private saveStage(sessionId: string, context: string, stage: string, value: unknown): void {
    this.db
      .prepare('INSERT OR REPLACE INTO transcription_stage_checkpoints (session_id, context, stage, value_json) VALUES (?, ?, ?, ?)')
      .run(sessionId, context, stage, JSON.stringify(value));
  }

  count(sessionId: string): number {
    return (this.db.prepare('SELECT count(*) AS n FROM transcription_checkpoints WHERE session_id = ?').get(sessionId) as { n: number }).n;
  }

  /** The steps kept for a session, whatever their context ('diarization-speech', 'diarization', 'chunk-plan'). */
  stages(sessionId: string): string[] {
    return (this.db.prepare('SELECT stage FROM transcription_stage_checkpoints WHERE session_id = ? ORDER BY stage DESC').all(sessionId) as Array<{ stage: string }>).map((r) => r.stage);
  }

  discard(sessionId: string): void {
    this.db.prepare('DELETE FROM transcription_checkpoints WHERE session_id = ?').run(sessionId);
    this.db.prepare('DELETE FROM transcription_stage_checkpoints WHERE session_id = ?').run(sessionId);
  }
}
