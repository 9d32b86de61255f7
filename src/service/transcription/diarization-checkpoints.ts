import type { DiarizationResult, Diarizer, Span } from '../speech/types';

/**
 * Checkpoints of a transcription's diarization, the other half of its work beside recognition (chunk-
 * checkpoints.ts): the speech spans found for diarization (a voice-activity pass over the whole recording)
 * and the diarizer's result. Diarization needs the whole signal and cannot be cut into chunks, so these
 * two are its steps: a kill during the clustering keeps the spans, a kill after it (while the last chunks
 * are recognized, or before the transcript is stored) keeps the result.
 */
export interface DiarizationCheckpoints {
  speech(): Span[] | null | Promise<Span[] | null>;
  /** Awaited: a promise it returns settles once the spans are kept (likewise `saveResult`). */
  saveSpeech(spans: Span[]): unknown;
  result(): DiarizationResult | null | Promise<DiarizationResult | null>;
  saveResult(result: DiarizationResult): unknown;
}

export type SpeechRefiner = (pcm: Float32Array, speech: Span[], signal?: AbortSignal) => Promise<Span[]>;

/**
 * The refinement of speech spans for diarization, answered from the checkpoint when there is one;
 * `onKept` is told once the spans are in the checkpoint (found now or before).
 */
export function checkpointedRefiner(inner: SpeechRefiner, checkpoints: DiarizationCheckpoints, onKept?: () => void): SpeechRefiner {
  return async (pcm, speech, signal) => {
    const kept = await checkpoints.speech();
    if (kept) {
      onKept?.();
      return kept;
    }
    const spans = await inner(pcm, speech, signal);
    if (!signal?.aborted) {
      await checkpoints.saveSpeech(spans);
      onKept?.();
    }
    return spans;
  };
}

/** The diarizer, answering from the checkpoint when the result is kept and checkpointing a new one. */
export function checkpointedDiarizer(inner: Diarizer, checkpoints: DiarizationCheckpoints): Diarizer {
  return {
    concurrent: inner.concurrent,
    async diarize(pcm, speech, options) {
      const kept = await checkpoints.result();
      if (kept) return kept;
      const result = await inner.diarize(pcm, speech, options);
      if (!options?.signal?.aborted) await checkpoints.saveResult(result);
      return result;
    },
  };
}
