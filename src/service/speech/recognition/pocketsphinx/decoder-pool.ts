import { AbortError, BatchProcess, type BatchProcessOptions } from './batch-process';

/**
 * A few BatchProcess workers (one per core by default, two at most) with a FIFO queue. Processes start
 * on first use, and with `idleSeconds` they end again once the pool has had nothing to do for that long
 * (each decoder holds ~110 MB, which an editor's other tools want back between transcriptions; issue 33),
 * so an idle pool costs nothing. An aborted job leaves the queue, or, if it is being decoded, its process is
 * killed and replaced on the next job.
 */
export class DecoderPool {
  private readonly workers: BatchProcess[];
  private readonly queue: Array<{
    start: (w: BatchProcess) => void;
    signal?: AbortSignal;
    cancel: () => void;
  }> = [];
  private closed = false;
  private idleTimer: NodeJS.Timeout | null = null;

  /** `idleSeconds`: end the processes after this long without work (absent, 0 or Infinity: keep them). */
  constructor(options: BatchProcessOptions, size: number, private readonly idleSeconds?: number) {
    this.workers = Array.from({ length: Math.max(1, size) }, () => new BatchProcess(options));
  }

  /** Decoder processes running now (busy or idle). */
  get running(): number {
    return this.workers.filter((w) => w.running).length;
  }

  run<T>(job: (worker: BatchProcess) => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (this.closed) return Promise.reject(new Error('decoder pool is closed'));
    this.clearIdle();
    if (signal?.aborted) return Promise.reject(new AbortError());
    return new Promise<T>((resolve, reject) => {
      const entry = {
        signal,
        start: (worker: BatchProcess) => {
          signal?.removeEventListener('abort', onAbort);
          job(worker)
            .then(resolve, reject)
            .finally(() => this.release(worker));
        },
        cancel: () => reject(new AbortError()),
      };
      const onAbort = () => {
        const i = this.queue.indexOf(entry);
        if (i >= 0) {
          this.queue.splice(i, 1);
          entry.cancel();
        }
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const idle = this.idleWorker();
      if (idle) this.take(idle, entry);
      else this.queue.push(entry);
    });
  }

  /** Starts every worker's process that is not running (the model loads while the caller does other work). */
  warm(): void {
    if (!this.closed) for (const worker of this.workers) worker.warm();
    // Warmed for work that may not come: rest again if none does.
    if (this.reserved.size === 0) this.scheduleRest();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.clearIdle();
    for (const entry of this.queue.splice(0)) entry.cancel();
    await Promise.all(this.workers.map((w) => w.close()));
  }

  private reserved = new Set<BatchProcess>();

  private idleWorker(): BatchProcess | undefined {
    return this.workers.find((w) => !this.reserved.has(w));
  }

  private take(worker: BatchProcess, entry: { start: (w: BatchProcess) => void }): void {
    this.reserved.add(worker);
    entry.start(worker);
  }

  private release(worker: BatchProcess): void {
    this.reserved.delete(worker);
    const next = this.queue.shift();
    if (next) this.take(worker, next);
    else if (this.reserved.size === 0) this.scheduleRest();
  }

  private scheduleRest(): void {
    const seconds = this.idleSeconds ?? 0;
    if (this.closed || !(seconds > 0) || !Number.isFinite(seconds)) return;
    this.clearIdle();
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      if (this.reserved.size === 0 && this.queue.length === 0) for (const w of this.workers) w.rest();
    }, seconds * 1000);
    // A pool waiting to rest must not keep a finished program alive.
    this.idleTimer.unref();
  }

  private clearIdle(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }
}
