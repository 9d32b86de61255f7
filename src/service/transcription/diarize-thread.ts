import { parentPort } from 'node:worker_threads';
import { SpectralDiarizer } from '../speech/diarization/spectralDiarizer';
import type { DiarizationResult, DiarizeOptions, Span } from '../speech/types';
import { lowerThisThreadPriority } from '../jobs/background-priority';
import { backgroundNice } from '../config';

// Below the service's event loop, so HTTP reads stay fast while this thread computes.
lowerThisThreadPriority(backgroundNice());

/** Worker-thread entry: spectral diarization is seconds to minutes of synchronous math. */
export interface DiarizeRequest {
  /** Matches the reply to its request (the thread serves one request after another). */
  id: number;
  /** Shared (read in place) or transferred. */
  buffer: ArrayBuffer | SharedArrayBuffer;
  byteOffset: number;
  length: number;
  speech: Span[];
  options: DiarizeOptions;
}

export type DiarizeReply =
  | { id: number; ok: true; result: DiarizationResult }
  | { id: number; ok: false; message: string };

// The thread lives as long as its owner keeps it (DiarizationThreads), serving one request at a time.
parentPort?.on('message', async (request: DiarizeRequest) => {
  let reply: DiarizeReply;
  try {
    const pcm = new Float32Array(request.buffer, request.byteOffset, request.length);
    const result = await new SpectralDiarizer().diarize(pcm, request.speech, request.options);
    reply = { id: request.id, ok: true, result };
  } catch (error) {
    reply = { id: request.id, ok: false, message: (error as Error)?.message ?? String(error) };
  }
  // A transferred recording goes back with the answer, so an idle thread holds no audio until its next
  // request; a shared one was never this thread's.
  parentPort!.postMessage(reply, request.buffer instanceof SharedArrayBuffer ? [] : [request.buffer]);
});
