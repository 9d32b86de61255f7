import type { DiarizationResult, Diarizer, DiarizeOptions, Span } from '../speech/types';
import type { DiarizeRequest } from './diarize-thread';
import { startModuleWorker } from '../module-runners';

/**
 * Runs the spectral diarizer on a worker thread so the service keeps answering requests meanwhile (on the
 * main thread an hour of audio would block the event loop for minutes). The PCM buffer is transferred,
 * not copied: the caller must not read `pcm` afterwards (the pipeline no longer needs it by then).
 */
export class ThreadedDiarizer implements Diarizer {
  readonly concurrent = true;
  /** `refineSpeech` may replace the recognizer's speech spans with ones suited to diarization. */
  constructor(
    private readonly refineSpeech?: (
      pcm: Float32Array,
      speech: Span[],
      signal?: AbortSignal,
    ) => Promise<Span[]>,
  ) {}

  async diarize(
    pcm: Float32Array,
    recognizedSpeech: Span[],
    options: DiarizeOptions = {},
  ): Promise<DiarizationResult> {
    // The signal stays here (it cannot cross to the thread); aborting it terminates the thread.
    const { signal, ...threadOptions } = options;
    signal?.throwIfAborted();
    const speech = this.refineSpeech
      ? await this.refineSpeech(pcm, recognizedSpeech, signal)
      : recognizedSpeech;
    signal?.throwIfAborted();
    const worker = startModuleWorker('./diarize-thread', import.meta.url);
    let onAbort: (() => void) | undefined;
    try {
      return await new Promise<DiarizationResult>((resolve, reject) => {
        onAbort = () => reject(signal!.reason);
        signal?.addEventListener('abort', onAbort, { once: true });
        worker.once(
          'message',
          (reply: { ok: true; result: DiarizationResult } | { ok: false; message: string }) => {
            if (reply.ok) resolve(reply.result);
            else reject(new Error(`diarization failed: ${reply.message}`));
          },
        );
        worker.once('error', reject);
        worker.once('exit', (code) => reject(new Error(`diarization thread exited with code ${code}`)));
        const request: DiarizeRequest = {
          buffer: pcm.buffer as ArrayBuffer,
          byteOffset: pcm.byteOffset,
          length: pcm.length,
          speech,
          options: threadOptions,
        };
        worker.postMessage(request, [pcm.buffer as ArrayBuffer]);
      });
    } finally {
      if (onAbort) signal?.removeEventListener('abort', onAbort);
      await worker.terminate();
    }
  }
}
