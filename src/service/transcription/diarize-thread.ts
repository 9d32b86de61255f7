import { parentPort } from 'node:worker_threads';
import { SpectralDiarizer } from '../speech/diarization/spectralDiarizer';
import type { DiarizeOptions, Span } from '../speech/types';
import { lowerThisThreadPriority } from '../jobs/background-priority';

// Below the service's event loop, so HTTP reads stay fast while this thread computes.
lowerThisThreadPriority();

/** Worker-thread entry: spectral diarization is seconds to minutes of synchronous math. */
export interface DiarizeRequest {
  buffer: ArrayBuffer;
  byteOffset: number;
  length: number;
  speech: Span[];
  options: DiarizeOptions;
}

parentPort?.once('message', async (request: DiarizeRequest) => {
  try {
    const pcm = new Float32Array(request.buffer, request.byteOffset, request.length);
    const result = await new SpectralDiarizer().diarize(pcm, request.speech, request.options);
    parentPort!.postMessage({ ok: true, result });
  } catch (error) {
    parentPort!.postMessage({ ok: false, message: (error as Error)?.message ?? String(error) });
  }
});
