import { userMessage } from '../errors';
import crypto from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { JobOutcome, JobStore } from '../storage/job-store';
import type { TransactionScope } from '../storage/transaction-scope';
import { DISK_FULL_JOB_MESSAGE, isDiskFull } from '../storage/disk-full';
import { orderedWrites } from './ordered-writes';
import { DEFAULT_STORAGE_RETRY_SECONDS, retryingStorage, StorageGaveUp } from './storage-retry';
import { SETTLED, type JobRecord } from './job-record';
import type { JobExecution, WorkerAdapter } from './worker-adapter';
import { InProcessWorker } from './in-process-worker';
import { crashPoints, isSimulatedCrash } from './crash-points';

export type { JobRecord, JobStatus } from './job-record';

export interface JobContext {
  job: JobRecord;
  /** Aborted when the service stops (the job is re-queued) or the session is deleted. */
  signal: AbortSignal;
  progress(fraction: number, stage?: string): void;
  /** Records what the job has found so far, for a waiter in another process (written in order, not awaited). */
  publish(result: Record<string, unknown>): void;
}

/** Returns what the job found when a waiter needs more than the data it stored (kept as the job's result). */
export type JobHandler = (ctx: JobContext) => Promise<void | Record<string, unknown>>;

export interface JobKindOptions {
  /**
   * How much finished work the kind has kept for a job (its checkpoints: chunks, lines, stages). Read at a
   * restart: more of it than at the previous interruption means the job got further, whatever its progress
   * fraction says (that one is advisory, written a few times a second and not in step with the checkpoints,
   * e.g. when chunks finish out of order).
   */
  keptWork?: (job: JobRecord) => Promise<number>;
  /**
   * Work no one waits on and no other job reads (the analysis). A queued job of a kind without this flag starts
   * first, so a new upload or a revoice is not kept behind every analysis still queued. Speaker adaptation and
   * voice profiles are not background: the next recording's decoding and speaker matching read what they write.
   */
  background?: boolean;
  /**
   * Short work someone is waiting to see (converting a recording's audio for a dub: seconds of ffmpeg), which
   * reads nothing other jobs write. It has a slot of its own beside the others: a queued job of such a kind
   * starts even while a transcription, a speaker adaptation or an analysis holds the queue (they take seconds
   * to minutes), one quick job at a time.
   */
  quick?: boolean;
  /**
   * Shows that the job waits for the storage where the kind's readers look (a recording's own status, say);
   * the job record's stage says so whatever the kind.
   */
  showWaiting?: (job: JobRecord, stage: string) => Promise<void>;
  /**
   * Writes the job's end into the kind's own tables (a run, a dub or a revoice that says failed; a recording
   * queued again), in the transaction that records it: both commit or neither does, so no reader sees a failed
   * job beside work that says `running`. `job.status` is the outcome (`queued` when it goes back to the queue).
   * Only stores bound to `scope` (`within(scope)`) may be used: anything else waits for the commit.
   */
  settle?: (job: JobRecord, scope: TransactionScope) => Promise<void>;
}

/** An error whose message is meant for the user (why a recording could not be processed). */
export class JobFailure extends Error {}

export interface JobEvents {
  /** A job this process took and starts running. */
  started: [job: JobRecord];
  progress: [job: JobRecord];
  /** A job running here published what it has found so far (`JobContext.publish`). */
  published: [job: JobRecord];
  settled: [job: JobRecord];
}

/**
 * What domain code asks of the queue, whichever process runs the work. Its answers come from the job records,
 * so they hold across processes (an API node asking about a worker's job).
 */
export interface JobQueue {
  /**
   * Queues work. Given a transaction's job store (`stores.jobs` inside `database.transaction`), the job exists
   * only if that transaction commits.
   */
  enqueue(kind: string, sessionId: string, payload?: Record<string, unknown>, within?: JobStore): Promise<string>;
  get(id: string): Promise<JobRecord | null>;
  /** True when a job of `kind` for the session is queued and not yet started. */
  waiting(kind: string, sessionId: string): Promise<boolean>;
  /** The session's queued and running jobs of a kind, with their payloads (to find those of one dub, say). */
  unfinishedOfKind(kind: string, sessionId: string): Promise<Array<{ id: string; payload: Record<string, unknown> }>>;
  /**
   * Queues a failed job's work again as a new job (same kind, session and payload), at the user's request.
   * Returns the new job's id, or null when the session's newest job of that kind has not failed. Work that
   * never had a job (a transcription made inside a request that a crash interrupted) gets a fresh one.
   */
  retry(kind: string, sessionId: string, within?: JobStore): Promise<string | null>;
  /** Cancels the jobs of a session that is going away, and waits for its running ones to stop. */
  cancelSession(sessionId: string): Promise<void>;
  /**
   * Cancels these jobs (of work that is going away, e.g. a deleted dub's revoice), wherever they run, and waits
   * for the running ones to stop. Settled ones are left as they are.
   */
  cancel(ids: readonly string[]): Promise<void>;
  /** The job once it has settled (complete, failed or cancelled), or null if it has not within `ms`. */
  settled(id: string, ms: number): Promise<JobRecord | null>;
  /**
   * Follows a job someone waits for until it settles: resolves with the settled record, or null when the record
   * is gone (its recording was deleted). `onRecord` sees each reading (what the job has published so far). A
   * worker in this process that can run it starts it at once, beside whatever runs. Throws the signal's reason
   * once it aborts; cancelling the job is the caller's to do.
   */
  follow(id: string, signal: AbortSignal, onRecord?: (job: JobRecord) => void): Promise<JobRecord | null>;
}

export interface RunnerOptions {
  log?: (line: string) => void;
  /**
   * Who runs jobs in this process. Absent: an in-process worker (the desktop's, one job at a time); null: none
   * (a team's API node, whose jobs its workers run).
   */
  worker?: WorkerAdapter | null;
  /** How often (ms) waits read the records of jobs that may run in another process (default 250; tests make it quick). */
  pollMs?: number;
  /**
   * How long (s) a job keeps trying again, with back-off, while the storage is unavailable before it fails
   * saying so (TAKELINE_STORAGE_RETRY_SECONDS; default 300).
   */
  storageRetrySeconds?: number;
  /**
   * Kinds that are background work (`JobKindOptions.background`) whether or not this process registers their
   * handlers: a team's API node queues analyses it never runs, and they must still wait behind other work.
   */
  backgroundKinds?: readonly string[];
}

/** A job's stage while it waits for the storage to answer again. */
export const WAITING_FOR_STORAGE_STAGE = 'waiting for storage';

/**
 * A team job's stage while its worker has stopped (killed, crashed) and no other has taken it yet: the queue
 * engine has it back, the record still says running. Set by the hand-over watch (queue/hand-over-watch.ts).
 */
export const WAITING_FOR_A_WORKER_STAGE = 'waiting for a worker';

/** Progress beyond the best so far by more than this counts as getting further. */
const PROGRESS_EPSILON = 0.001;

/**
 * Durable background jobs: the job port, the same in every role (queue, read, follow, cancel), and the running of
 * the jobs this process's worker adapter takes. A job is a row of the jobs table; a crash leaves it `running`, and
 * the next start puts it back in the queue, so work resumes after a restart. Handlers are registered per kind, so
 * later kinds (analysis stages, dubbing) drop in without touching the runner. Queued jobs start oldest first,
 * those of background kinds after all others; a quick kind's job has a slot of its own beside them.
 */
export class JobRunner extends EventEmitter<JobEvents> implements JobQueue {
  private readonly handlers = new Map<string, JobHandler>();
  private readonly kinds = new Map<string, JobKindOptions>();
  /** Where each kind shows a waiting stage besides its job record; known in processes that run no handler too. */
  private readonly displays = new Map<string, NonNullable<JobKindOptions['showWaiting']>>();
  private readonly running = new Map<string, { job: JobRecord; controller: AbortController; done: Promise<void>; requeue: boolean; quick: boolean }>();
  private stopping = false;
  private readonly worker: WorkerAdapter | null;

  constructor(
    private readonly store: JobStore,
    private readonly options: RunnerOptions = {},
  ) {
    super();
    this.worker = options.worker === undefined ? new InProcessWorker() : options.worker;
    this.worker?.attach(this.execution());
  }

  private execution(): JobExecution {
    return {
      store: this.store,
      handles: (kind) => this.handlers.has(kind),
      kinds: () => {
        const all = [...this.handlers.keys()];
        return { all, background: all.filter((kind) => this.isBackground(kind)), quick: all.filter((kind) => this.kinds.get(kind)?.quick) };
      },
      runningCount: () => this.running.size,
      quickRunning: () => [...this.running.values()].some((r) => r.quick),
      run: async (job) => {
        this.launch(job);
        await this.running.get(job.id)?.done;
      },
      countInterruption: (id) => this.countInterruption(id),
      failCrashLoop: (id, n) => this.failCrashLoop(id, n),
      abort: (ids, reason) => {
        for (const id of ids) this.running.get(id)?.controller.abort(new Error(reason));
      },
      stopping: () => this.stopping,
      log: (line) => this.options.log?.(line),
    };
  }

  register(kind: string, handler: JobHandler): void;
  register(kind: string, options: JobKindOptions, handler: JobHandler): void;
  register(kind: string, ...args: [JobHandler] | [JobKindOptions, JobHandler]): void {
    const [options, handler] = args.length === 1 ? [{}, args[0]] : args;
    this.handlers.set(kind, handler);
    this.kinds.set(kind, options);
    if (options.showWaiting) this.displays.set(kind, options.showWaiting);
  }

  /** Where a kind shows that its job waits (`JobKindOptions.showWaiting`), in a process that does not run it (an API node). */
  displayWaiting(kind: string, show: NonNullable<JobKindOptions['showWaiting']>): void {
    this.displays.set(kind, show);
  }

  /** Shows a waiting stage where the job's kind shows it (its record's stage is the caller's to write). */
  async showWaiting(job: JobRecord, stage: string): Promise<void> {
    await this.displays.get(job.kind)?.(job, stage);
  }

  async enqueue(kind: string, sessionId: string, payload: Record<string, unknown> = {}, within?: JobStore): Promise<string> {
    const id = crypto.randomUUID();
    await (within ?? this.store).insert(id, kind, sessionId, payload, { background: this.isBackground(kind) });
    // Inside a transaction the worker's reads wait for its commit (or see nothing after a rollback).
    setImmediate(() => this.worker?.wake());
    return id;
  }

  private isBackground(kind: string): boolean {
    return this.kinds.get(kind)?.background ?? this.options.backgroundKinds?.includes(kind) ?? false;
  }

  get(id: string): Promise<JobRecord | null> {
    return this.store.get(id);
  }

  waiting(kind: string, sessionId: string): Promise<boolean> {
    return this.store.waiting(kind, sessionId);
  }

  unfinishedOfKind(kind: string, sessionId: string): Promise<Array<{ id: string; payload: Record<string, unknown> }>> {
    return this.store.unfinishedOfKind(kind, sessionId);
  }

  async start(): Promise<void> {
    this.stopping = false;
    await this.worker?.start();
  }

  private async countInterruption(id: string): Promise<void> {
    const job = await this.get(id);
    if (!job) return;
    const keptWork = this.kinds.get(job.kind)?.keptWork;
    await this.store.countInterruption(id, keptWork ? await keptWork(job) : 0, PROGRESS_EPSILON);
  }

  private async failCrashLoop(id: string, n: number): Promise<void> {
    const job = (await this.get(id))!;
    await this.record(job, { status: 'failed', error: `Processing was interrupted ${n} times at the same point (${Math.round(job.progress * 100)}%); retry it to try again.`, progress: job.progress });
    this.options.log?.(`job ${id} (${job.kind}) failed: interrupted ${n} times at the same point`);
    this.emit('settled', job);
  }

  /** Stops running jobs and leaves them queued, to resume on the next start. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.worker?.stop();
    for (const entry of this.running.values()) {
      entry.requeue = true;
      entry.controller.abort(new Error('service stopping'));
    }
    await Promise.allSettled([...this.running.values()].map((r) => r.done));
    await this.worker?.idle();
  }

  async cancelSession(sessionId: string): Promise<void> {
    await this.stopped(await this.store.cancelAll(sessionId), 'session deleted');
  }

  async cancel(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.stopped(await this.store.cancelJobs(ids), 'cancelled');
  }

  /**
   * The running jobs whose records were just cancelled: those running here stop at once; the workers running the
   * others see their records cancelled and stop them. Waits (a while) until every one says it has.
   */
  private async stopped(ids: readonly string[], reason: string): Promise<void> {
    const here = ids.map((id) => this.running.get(id)).filter((r) => r !== undefined);
    let running = ids.filter((id) => !this.running.has(id));
    for (const entry of here) entry.controller.abort(new Error(reason));
    await Promise.allSettled(here.map((r) => r.done));
    if (running.length > 0) running = await this.store.unfinished(running);
    const deadline = Date.now() + 30_000;
    while (running.length > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, this.options.pollMs ?? 250));
      running = await this.store.unfinished(running);
    }
  }

  async retry(kind: string, sessionId: string, within?: JobStore): Promise<string | null> {
    const last = await (within ?? this.store).latest(kind, sessionId);
    if (!last) return this.enqueue(kind, sessionId, {}, within);
    if (last.status !== 'failed') return null;
    return this.enqueue(kind, sessionId, last.payload, within);
  }

  async settled(id: string, ms: number): Promise<JobRecord | null> {
    let finish!: (job: JobRecord | null) => void;
    const done = new Promise<JobRecord | null>((resolve) => {
      const onSettled = (job: JobRecord) => {
        if (job.id === id) finish(job);
      };
      const timer = setTimeout(() => finish(null), Math.max(0, ms));
      finish = (job) => {
        clearTimeout(timer);
        this.off('settled', onSettled);
        resolve(job);
      };
      this.on('settled', onSettled);
    });
    // Listening before looking, so a job that settles while its record is read is not missed.
    const job = await this.get(id);
    if (!job || SETTLED.has(job.status)) finish(job);
    // One running here says when it settles; another process's is read until it does.
    else if (!this.running.has(id)) void this.pollUntilSettled(id, done, finish);
    return done;
  }

  async follow(id: string, signal: AbortSignal, onRecord?: (job: JobRecord) => void): Promise<JobRecord | null> {
    // A job running here hands on what it publishes and its end at once (no poll delay); the records of one
    // another process runs (a team's worker) are read every `pollMs`.
    let pending: JobRecord | undefined;
    let wake: (() => void) | null = null;
    const onEvent = (job: JobRecord) => {
      if (job.id !== id) return;
      pending = job;
      wake?.();
    };
    this.on('published', onEvent);
    this.on('settled', onEvent);
    try {
      // Listening before looking, so nothing that happens while the record is read is missed.
      let job = await this.get(id);
      if (job?.status === 'queued') this.worker?.take(id);
      for (;;) {
        signal.throwIfAborted();
        if (!job) return null;
        onRecord?.(job);
        if (SETTLED.has(job.status)) return job;
        if (pending === undefined) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(done, this.options.pollMs ?? 250);
            signal.addEventListener('abort', done, { once: true });
            wake = done;
            function done() {
              clearTimeout(timer);
              signal.removeEventListener('abort', done);
              resolve();
            }
          });
          wake = null;
        }
        const heard = pending;
        pending = undefined;
        // Running here: the job's own record in memory is ahead of its stored one (its writes are ordered, not awaited).
        job = heard ?? this.running.get(id)?.job ?? (await this.get(id));
      }
    } finally {
      this.off('published', onEvent);
      this.off('settled', onEvent);
    }
  }

  /** Another process may run the job (a team's worker), so its record is read until it settles or the wait ends. */
  private async pollUntilSettled(id: string, done: Promise<JobRecord | null>, finish: (job: JobRecord | null) => void): Promise<void> {
    let over = false;
    void done.then(() => (over = true));
    while (!over) {
      await new Promise((resolve) => setTimeout(resolve, this.options.pollMs ?? 250));
      if (over) return;
      const job = await this.get(id).catch(() => undefined);
      if (job === null || (job && SETTLED.has(job.status))) finish(job);
    }
  }

  private launch(job: JobRecord): void {
    const controller = new AbortController();
    const entry = { job, controller, requeue: false, done: Promise.resolve(), quick: this.kinds.get(job.kind)?.quick ?? false };
    this.running.set(job.id, entry);
    const writes = orderedWrites((error) => this.options.log?.(`job ${job.id} (${job.kind}): could not write its progress: ${(error as Error)?.message ?? String(error)}`));
    let lastWrite = 0;
    const progress = (fraction: number, stage?: string) => {
      job.progress = Math.max(0, Math.min(1, fraction));
      if (stage !== undefined) job.stage = stage;
      const now = Date.now();
      // Progress is advisory: write at most a few times a second.
      if (now - lastWrite > 250 || fraction >= 1) {
        lastWrite = now;
        const { progress: value, stage: named } = job;
        writes.push(() => this.store.setProgress(job.id, value, named));
      }
      this.emit('progress', job);
    };
    const publish = (result: Record<string, unknown>) => {
      job.result = result;
      writes.push(() => this.store.setResult(job.id, result));
      this.emit('published', job);
    };
    const handler = this.handlers.get(job.kind)!;
    // Taken over after its worker stopped: no longer waiting (the handler's first progress names its own stage).
    if (job.stage === WAITING_FOR_A_WORKER_STAGE) {
      job.stage = null;
      const { progress: value } = job;
      writes.push(() => this.store.setProgress(job.id, value, null));
    }
    this.emit('started', job);
    entry.done = (async () => {
      let outcome: JobOutcome | null;
      try {
        const result = await retryingStorage(() => handler({ job, signal: controller.signal, progress, publish }), {
          boundMs: (this.options.storageRetrySeconds ?? DEFAULT_STORAGE_RETRY_SECONDS) * 1000,
          signal: controller.signal,
          waiting: (outage, delayMs, retry) => {
            this.options.log?.(`job ${job.id} (${job.kind}): ${outage.reason}; trying again in ${delayMs / 1000} s (retry ${retry})`);
            // Written at once, whatever the last progress write was: the wait is what a reader should see.
            job.stage = WAITING_FOR_STORAGE_STAGE;
            writes.push(() => this.store.setProgress(job.id, job.progress, WAITING_FOR_STORAGE_STAGE));
            writes.push(() => this.showWaiting(job, WAITING_FOR_STORAGE_STAGE));
            this.emit('progress', job);
          },
        });
        crashPoints.hit('job.before-outcome');
        outcome = { status: 'complete', error: null, progress: 1, result: result ?? undefined };
      } catch (error) {
        if (isSimulatedCrash(error)) {
          // A test's crash: the process "died" here, so nothing more is recorded and the job stays `running`.
          outcome = null;
          controller.abort(error);
        } else if (entry.requeue) {
          outcome = { status: 'queued' };
        } else if (controller.signal.aborted) {
          outcome = { status: 'cancelled', error: 'cancelled', progress: job.progress };
        } else {
          if (error instanceof StorageGaveUp) this.options.log?.(`job ${job.id} (${job.kind}) failed: ${error.outage.reason}; gave up after retrying`);
          const shown = error instanceof JobFailure || error instanceof StorageGaveUp ? error.message : userMessage(error);
          const message = shown ?? (isDiskFull(error) ? DISK_FULL_JOB_MESSAGE : 'Processing failed because of an internal error.');
          if (shown === null) this.options.log?.(`job ${job.id} (${job.kind}) failed: ${(error as Error)?.stack ?? String(error)}`);
          outcome = { status: 'failed', error: message, progress: job.progress };
        }
      }
      await writes.flush();
      // Recording the outcome can fail too (a full disk): the job then stays `running` in the database, with its
      // kind's tables as they were, and resumes at the next start. The service must not die of it.
      const settling = outcome;
      const alive = settling !== null && (await this.guarded(job, 'record its outcome', () => this.record(job, settling)));
      this.running.delete(job.id);
      if (!alive) return;
      await this.guarded(job, 'report its outcome', () => {
        this.emit('settled', job);
        return Promise.resolve();
      });
      setImmediate(() => this.worker?.wake());
    })();
  }

  /** False only when a test's crash ended the "process" in `action`; other failures are logged. */
  private async guarded(job: JobRecord, what: string, action: () => Promise<void>): Promise<boolean> {
    try {
      await action();
    } catch (error) {
      if (isSimulatedCrash(error)) return false;
      this.options.log?.(`job ${job.id} (${job.kind}): could not ${what}: ${(error as Error)?.message ?? String(error)}`);
    }
    return true;
  }

  /** Records the job's outcome, with what its kind writes of it (`JobKindOptions.settle`) in the same transaction. */
  private async record(job: JobRecord, outcome: JobOutcome): Promise<void> {
    job.status = outcome.status;
    if (outcome.status !== 'queued') {
      job.error = outcome.error;
      job.progress = outcome.progress;
      if (outcome.result) job.result = outcome.result;
    }
    const write = this.kinds.get(job.kind)?.settle;
    await this.store.settle(
      job.id,
      outcome,
      write &&
        ((scope) => {
          crashPoints.hit('job.settling');
          return write(job, scope);
        }),
    );
  }
}
