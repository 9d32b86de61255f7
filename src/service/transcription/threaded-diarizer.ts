import type { Worker } from 'node:worker_threads';
import type { DiarizationResult, Diarizer, DiarizeOptions, Span } from '../speech/types';
import { SAMPLE_RATE } from '../speech/types';
import type { DiarizeReply, DiarizeRequest } from './diarize-thread';
import { startModuleWorker } from '../module-runners';

/**
 * Worker threads for diarization, kept between requests: starting one costs 20 ms from the bundle and
 * about 0.3 s of CPU from source (tsx registers itself and compiles the diarizer in the thread), which on
 * a short recording is as much as the diarization itself. One idle thread is kept (`keepIdle`); a second
 * request while one is busy gets a thread of its own, ended when it is done. A thread whose request was
 * aborted is ended (its synchronous math cannot be interrupted otherwise) and so is one that crashed; a
 * diarization that throws leaves its thread reusable. After a recording longer than `recycleSeconds` the
 * thread is ended too, so an idle thread does not hold a long recording's garbage until its next request
 * (the start-up is nothing next to such a recording). Idle threads do not keep the process alive.
 */
export class DiarizationThreads {
  private readonly idle: Worker[] = [];
  private readonly busy = new Set<Worker>();
  private closed = false;
  private nextId = 1;
  /** Threads started so far (for tests and benchmarks). */
  started = 0;

  constructor(
    private readonly options: { keepIdle?: number; recycleSeconds?: number; start?: () => Worker } = {},
  ) {}

  /** Starts an idle thread now if there is none, so the next request does not wait for one. */
  warm(): void {
    if (this.closed || this.idle.length > 0 || this.keepIdle === 0) return;
    this.park(this.startThread());
  }

  /** Runs one request on a thread; `signal` ends the thread at once. */
  async run(request: Omit<DiarizeRequest, 'id'>, signal?: AbortSignal): Promise<DiarizationResult> {
    if (this.closed) throw new Error('The diarization threads are closed.');
    signal?.throwIfAborted();
    const worker = this.idle.pop() ?? this.startThread();
    worker.ref();
    this.busy.add(worker);
    const id = this.nextId++;
    let reusable = false;
    const cleanup: (() => void)[] = [];
    try {
      const result = await new Promise<DiarizationResult>((resolve, reject) => {
        const on = <A extends unknown[]>(event: string, listener: (...args: A) => void) => {
          worker.on(event, listener as (...args: unknown[]) => void);
          cleanup.push(() => worker.off(event, listener as (...args: unknown[]) => void));
        };
        on('message', (reply: DiarizeReply) => {
          if (reply.id !== id) return;
          reusable = true;
          if (reply.ok) resolve(reply.result);
          else reject(new Error(`diarization failed: ${reply.message}`));
        });
        on('error', reject);
        on('exit', (code: number) => reject(new Error(`diarization thread exited with code ${code}`)));
        if (signal) {
          const onAbort = () => reject(signal.reason);
          signal.addEventListener('abort', onAbort, { once: true });
          cleanup.push(() => signal.removeEventListener('abort', onAbort));
        }
        // A shared buffer is read in place (the pipeline still reads its queued chunks from it); another
        // is moved, not copied.
        const transfer = request.buffer instanceof SharedArrayBuffer ? [] : [request.buffer];
        worker.postMessage({ ...request, id } satisfies DiarizeRequest, transfer);
      });
      return result;
    } finally {
      for (const undo of cleanup) undo();
      this.busy.delete(worker);
      const long = request.length / SAMPLE_RATE > (this.options.recycleSeconds ?? 600);
      if (reusable && !long && !this.closed && this.idle.length < this.keepIdle) this.park(worker);
      else await worker.terminate();
    }
  }

  /** Ends every thread; a request still running rejects. */
  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.idle.splice(0), ...this.busy];
    this.busy.clear();
    await Promise.all(all.map((w) => w.terminate()));
  }

  /** Threads alive now (idle and busy). */
  get alive(): number {
    return this.idle.length + this.busy.size;
  }

  private get keepIdle(): number {
    return this.options.keepIdle ?? 1;
  }

  private startThread(): Worker {
    this.started++;
    const worker = this.options.start?.() ?? startModuleWorker('./diarize-thread', import.meta.url);
    // An idle thread that dies (it should not) is simply dropped; the next request starts another.
    worker.on('error', () => this.drop(worker));
    worker.on('exit', () => this.drop(worker));
    return worker;
  }

  private park(worker: Worker): void {
    worker.unref();
    this.idle.push(worker);
  }

  private drop(worker: Worker): void {
    const i = this.idle.indexOf(worker);
    if (i >= 0) this.idle.splice(i, 1);
  }
}

/**
 * Runs the spectral diarizer on a worker thread so the service keeps answering requests meanwhile (on the
 * main thread an hour of audio would block the event loop for minutes). The PCM is never copied: a
 * SharedArrayBuffer (the pipeline's, while chunks still decode) is read in place, and any other buffer is
 * transferred, so the caller must not read such a `pcm` afterwards.
 * Without `threads` of its own owner's, each call starts a thread and ends it after.
 */
export class ThreadedDiarizer implements Diarizer {
  readonly concurrent = true;
  private readonly threads: DiarizationThreads;

  /** `refineSpeech` may replace the recognizer's speech spans with ones suited to diarization. */
  constructor(
    private readonly refineSpeech?: (
      pcm: Float32Array,
      speech: Span[],
      signal?: AbortSignal,
    ) => Promise<Span[]>,
    threads?: DiarizationThreads,
  ) {
    this.threads = threads ?? new DiarizationThreads({ keepIdle: 0 });
  }

  async diarize(
    pcm: Float32Array,
    recognizedSpeech: Span[],
    options: DiarizeOptions = {},
  ): Promise<DiarizationResult> {
    // The signal stays here (it cannot cross to the thread); aborting it ends the thread.
    const { signal, ...threadOptions } = options;
    signal?.throwIfAborted();
    const speech = this.refineSpeech
      ? await this.refineSpeech(pcm, recognizedSpeech, signal)
      : recognizedSpeech;
    signal?.throwIfAborted();
    return this.threads.run(
      {
        buffer: pcm.buffer,
        byteOffset: pcm.byteOffset,
        length: pcm.length,
        speech,
        options: threadOptions,
      },
      signal,
    );
  }
}
