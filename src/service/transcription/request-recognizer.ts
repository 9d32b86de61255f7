import type { RecognizeOptions, Recognizer } from '../speech/types';

/**
 * The shared recognizer with one request's settings (language, temperature) added to every call, so the
 * pipeline, which passes only the chunk's offset, prompt and signal, need not know them.
 */
export function withRequestOptions(recognizer: Recognizer, extra: Pick<RecognizeOptions, 'language' | 'temperature'>): Recognizer {
  return {
    id: recognizer.id,
    writesText: recognizer.writesText,
    recognize: (pcm, options = {}) => recognizer.recognize(pcm, { ...extra, ...options }),
    // Closing belongs to whoever created the shared recognizer.
    close: async () => {},
  };
}
