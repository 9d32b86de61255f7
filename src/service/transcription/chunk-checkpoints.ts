import type { ChunkCheckpointStore } from '../storage/chunk-checkpoint-store';
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
  get(offset: number, samples: number): RecognizedSegment[] | null | Promise<RecognizedSegment[] | null>;
  /** Awaited: a promise it returns settles once the chunk is kept. */
  put(offset: number, samples: number, segments: RecognizedSegment[]): unknown;
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
      const kept = await checkpoints.get(offset, pcm.length);
      if (kept) {
        onReuse?.();
        return kept;
      }
      const segments = await inner.recognize(pcm, options);
      if (!options?.signal?.aborted) await checkpoints.put(offset, pcm.length, segments);
      return segments;
    },
    close: () => inner.close(),
  };
}

/**
 * A session's checkpoints in the store, under one recognition context (engine, language, prompt, vocabulary):
 * a retry with other settings must not reuse them. Removed when the transcript is stored.
 */
export function storedChunkCheckpoints(store: ChunkCheckpointStore, sessionId: string, context: string): ChunkCheckpoints {
  return {
    get: (offset, samples) => store.chunk(sessionId, context, offset, samples),
    put: (offset, samples, segments) => store.saveChunk(sessionId, context, offset, samples, segments),
    // One row, replaced as the run goes on (beside diarization's steps, under the recognition context).
    plan: {
      load: () => store.stage<ChunkPlan>(sessionId, context, 'chunk-plan'),
      save: (plan) => store.saveStage(sessionId, context, 'chunk-plan', plan),
    },
  };
}

/** Diarization's steps in the store, per session and diarization context (the speaker-count hints). */
export function storedDiarizationCheckpoints(store: ChunkCheckpointStore, sessionId: string, context: string): DiarizationCheckpoints {
  return {
    speech: () => store.stage<Span[]>(sessionId, context, 'diarization-speech'),
    saveSpeech: (spans) => store.saveStage(sessionId, context, 'diarization-speech', spans),
    result: () => store.stage<DiarizationResult>(sessionId, context, 'diarization'),
    saveResult: (result) => store.saveStage(sessionId, context, 'diarization', result),
  };
}
