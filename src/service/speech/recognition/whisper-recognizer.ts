import os from 'node:os';
import type { RecognizeOptions, RecognizedSegment, Recognizer } from '../types';
import { WhisperHostProcess } from './whisper/host-process';
import { whisperParams } from './whisper/params';
import { toRecognizedSegments } from './whisper/result';

export interface WhisperRecognizerOptions {
  /** Engine id reported on transcripts (`whisper-base.en`). */
  id: string;
  /** The ggml model file. */
  modelFile: string;
  /** False for the `.en` models. */
  multilingual: boolean;
  /** whisper.cpp threads per call; default one per core, at most 8. */
  threads?: number;
  /** Seconds without work after which the model is unloaded. Default 300. */
  idleSeconds?: number;
}

/**
 * whisper.cpp (through smart-whisper, in a child process) behind the Recognizer contract. The model loads
 * on the first chunk. Chunks are decoded one at a time, each with every core (whisper.cpp's own threads),
 * so the pipeline's parallel calls queue here; a cancelled chunk stops at once (see WhisperHostProcess).
 */
export function createWhisperRecognizer(options: WhisperRecognizerOptions): Recognizer {
  const threads = options.threads ?? Math.min(8, Math.max(1, os.availableParallelism()));
  const host = new WhisperHostProcess({ modelFile: options.modelFile, idleSeconds: options.idleSeconds });
  return {
    id: options.id,
    writesText: true,
    async recognize(pcm: Float32Array, opts: RecognizeOptions = {}): Promise<RecognizedSegment[]> {
      const params = whisperParams({
        language: opts.language,
        // Whisper's initial prompt is its vocabulary hint: the project's words lead, the request's prompt follows.
        prompt: [opts.vocabulary?.join(', '), opts.prompt].filter(Boolean).join('. ') || undefined,
        temperature: opts.temperature,
        threads,
        multilingual: options.multilingual,
      });
      const segments = await host.transcribe(pcm, params, opts.signal);
      return toRecognizedSegments(segments, opts.offset ?? 0);
    },
    close: () => host.close(),
  };
}
