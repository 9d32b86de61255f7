import type { Recognizer } from '../speech/types';

/**
 * The recognizer, trying a chunk once more when its recognition fails for another reason than the caller
 * stopping. A decoder's watchdog fires on a machine starved of CPU (it allows 30 s + 10 × the chunk), and
 * one chunk's failure otherwise fails a whole transcription: the engine restarts its process after a
 * failure, so the second try starts clean. A chunk that fails twice fails the transcription.
 */
export function retryingRecognizer(inner: Recognizer, onRetry?: (error: unknown, offset: number) => void): Recognizer {
  return {
    id: inner.id,
    writesText: inner.writesText,
    async recognize(pcm, options) {
      try {
        return await inner.recognize(pcm, options);
      } catch (error) {
        if (options?.signal?.aborted) throw error;
        onRetry?.(error, options?.offset ?? 0);
        return inner.recognize(pcm, options);
      }
    },
    close: () => inner.close(),
  };
}
