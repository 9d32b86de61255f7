import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';

/** The error a pool's job (or a pooled process's work) rejects with once its signal aborts it. */
export class AbortError extends Error {
  override name = 'AbortError';
  constructor(message = 'The operation was aborted') {
    super(message);
  }
}

/** A long-lived helper process (a decoder, a synthesizer) that does one job at a time for a pool. */
export interface PooledProcess {
  /** True while its program is running (busy or waiting for work). */
  readonly running: boolean;
  /** Starts its program now if it is not running, so the next job does not wait for it to load. */
  warm(): void;
  /** Ends its program if it is idle, to give its memory back; the next job starts it again. */
  rest(): void;
  /** Ends its program (whatever it is doing); resolves once it is gone. */
  close(): Promise<void>;
}

/**
 * The life of a program kept running to do one job at a time: started on first use (or warmed), with a private
 * temp folder; the job in flight is rejected and the program killed when its state no longer matches ours (an
 * abort, a timeout, a protocol failure), and rejected when the program ends by itself; ended when idle or closed.
 * A subclass starts the program (setting `child` and `dir`) and speaks its protocol.
 */
export abstract class OneJobProcess<Job extends { reject(error: Error): void }> implements PooledProcess {
  protected child: ChildProcess | null = null;
  protected dir = '';
  protected active: Job | null = null;

  /** Starts the program; sets `child` and `dir`. */
  protected abstract start(): void;

  /** Names the program in the error a job in flight gets when the process is closed. */
  protected abstract readonly programName: string;

  get running(): boolean {
    return this.child !== null;
  }

  /** Ends an idle program to give its memory back; the next job starts it again. A busy one is left alone. */
  rest(): void {
    if (!this.active) this.stop();
  }

  warm(): void {
    if (!this.child && !this.active) this.start();
  }

  /** Ends the program and removes its temp folder; resolves once the process is gone (its files closed). */
  async close(): Promise<void> {
    const child = this.child;
    this.fail(new AbortError(`${this.programName} closed`));
    this.stop();
    if (child && child.exitCode === null && child.signalCode === null) {
      // Bounded: a process stuck in the kernel must not hold up the service's shutdown.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 5000);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** The program ended (or could not start): the job in flight fails with `error`. */
  protected exited(child: ChildProcess, error: Error): void {
    if (child !== this.child) return;
    const job = this.active;
    this.active = null;
    this.stop();
    job?.reject(error);
  }

  /** Rejects the job in flight and kills the process, whose state no longer matches ours. */
  protected fail(error: Error): void {
    const job = this.active;
    this.active = null;
    if (job) {
      this.stop();
      job.reject(error);
    }
  }

  /** Kills the program if it runs, lets its files go and removes its temp folder. */
  protected stop(): void {
    const child = this.child;
    this.child = null;
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    this.closeFiles();
    if (this.dir) fs.rmSync(this.dir, { recursive: true, force: true });
    this.dir = '';
  }

  /** Files the subclass keeps open on the program's folder (closed before it is removed). */
  protected closeFiles(): void {}
}

/**
 * A few long-lived processes with a FIFO queue. Processes start on first use, and with `idleSeconds` they end
 * again once the pool has had nothing to do for that long, so an idle pool costs nothing. An aborted job leaves
 * the queue, or, if it is running, its process deals with the abort (killed and replaced on the next job).
 */
export class ProcessPool<W extends PooledProcess> {
  private readonly workers: W[];
  private readonly queue: Array<{
    start: (w: W) => void;
    signal?: AbortSignal;
    cancel: () => void;
  }> = [];
  private closed = false;
  private idleTimer: NodeJS.Timeout | null = null;
  private reserved = new Set<W>();

  /** `idleSeconds`: end the processes after this long without work (absent, 0 or Infinity: keep them). */
  constructor(create: () => W, size: number, private readonly idleSeconds?: number) {
    this.workers = Array.from({ length: Math.max(1, size) }, create);
  }

  /** Processes running now (busy or idle). */
  get running(): number {
    return this.workers.filter((w) => w.running).length;
  }

  run<T>(job: (worker: W) => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (this.closed) return Promise.reject(new Error('process pool is closed'));
    this.clearIdle();
    if (signal?.aborted) return Promise.reject(new AbortError());
    return new Promise<T>((resolve, reject) => {
      const entry = {
        signal,
        start: (worker: W) => {
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

  /** Starts every process that is not running (its model loads while the caller does other work). */
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

  /** The first free process: a running one is preferred by order, so a second starts only when both are needed. */
  private idleWorker(): W | undefined {
    return this.workers.find((w) => !this.reserved.has(w));
  }

  private take(worker: W, entry: { start: (w: W) => void }): void {
    this.reserved.add(worker);
    entry.start(worker);
  }

  private release(worker: W): void {
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
