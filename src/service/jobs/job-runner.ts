import { userMessage } from '../errors';
import crypto from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { JobStore } from '../storage/job-store';
import { DISK_FULL_JOB_MESSAGE, isDiskFull } from '../storage/disk-full';
import { orderedWrites } from './ordered-writes';

export type JobStatus = 'queued' | 'running' | 'complete' | 'failed' | 'cancelled';

export interface JobRecord {
  id: string;
  kind: string;
  session_id: string;
  status: JobStatus;
  payload: Record<string, unknown>;
  progress: number;
  stage: string | null;
  error: string | null;
  attempts: number;
  /** What the job found (its handler's return), or has found so far (`publish`); null when it says nothing. */
  result: Record<string, unknown> | null;
}

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
}

/** An error whose message is meant for the user (why a recording could not be processed). */
export class JobFailure extends Error {}

export interface JobEvents {
  progress: [job: JobRecord];
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
}

/**
 * Who runs the jobs. `embedded`: this process takes them from the jobs table (the desktop). Team mode: an `api`
 * node only queues and reads them; a `worker` runs those the queue engine delivers (`runDelivered`), and never
 * re-queues jobs at its start, since other workers own those still running.
 */
export type RunnerRole = 'embedded' | 'api' | 'worker';

export interface RunnerOptions {
  concurrency?: number;
  log?: (line: string) => void;
  role?: RunnerRole;
  /**
   * Team mode: how often (ms) waits read job records (default 250) and a worker looks for cancellations of its
   * jobs (default 1000); one value for both when given (tests make them quick).
   */
  pollMs?: number;
}

/** A delivered job the worker did not finish because it is stopping: the queue engine hands it to another. */
export class JobHandedBack extends Error {}

const MAX_ATTEMPTS = 3;
/** Progress beyond the best so far by more than this counts as getting further. */
const PROGRESS_EPSILON = 0.001;
const SETTLED: ReadonlySet<JobStatus> = new Set(['complete', 'failed', 'cancelled']);

/**
 * Durable background jobs. A job is a row of the jobs table; a crash leaves it `running`, and the next start
 * puts it back in the queue, so work resumes after a restart. Handlers are registered per kind, so later kinds
 * (analysis stages, dubbing) drop in without touching the runner. Queued jobs start oldest first, those of
 * background kinds after all others; a quick kind's job has a slot of its own beside them.
 */
export class JobRunner extends EventEmitter<JobEvents> implements JobQueue {
  private readonly handlers = new Map<string, JobHandler>();
  private readonly kinds = new Map<string, JobKindOptions>();
  private readonly running = new Map<string, { controller: AbortController; done: Promise<void>; requeue: boolean; quick: boolean }>();
  private started = false;
  private stopping = false;
  /** One pump at a time: starting a job takes reads and writes, and two pumps would start one job twice. */
  private pumping: Promise<void> = Promise.resolve();
  private watcher: NodeJS.Timeout | null = null;
  readonly role: RunnerRole;

  constructor(
    private readonly store: JobStore,
    private readonly options: RunnerOptions = {},
  ) {
    super();
    this.role = options.role ?? 'embedded';
  }

  register(kind: string, handler: JobHandler): void;
  register(kind: string, options: JobKindOptions, handler: JobHandler): void;
  register(kind: string, ...args: [JobHandler] | [JobKindOptions, JobHandler]): void {
    const [options, handler] = args.length === 1 ? [{}, args[0]] : args;
    this.handlers.set(kind, handler);
    this.kinds.set(kind, options);
  }

  async enqueue(kind: string, sessionId: string, payload: Record<string, unknown> = {}, within?: JobStore): Promise<string> {
    const id = crypto.randomUUID();
    await (within ?? this.store).insert(id, kind, sessionId, payload, { background: this.kinds.get(kind)?.background ?? false });
    // Inside a transaction the runner's own reads wait for its commit (or see nothing after a rollback).
    if (this.role === 'embedded') setImmediate(() => this.pump());
    return id;
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
    if (this.role !== 'embedded') {
      this.started = true;
      if (this.role === 'worker') this.watchCancellations();
      return;
    }
    // Whatever was running when the process died is queued again, unless it has already taken the
    // process down several times (then it would crash-loop).
    // A job that got further than before the previous interruption is making progress (checkpoints keep
    // it): its count of interruptions starts again. Only one dying at the same point again and again is
    // crash-looping. (`attempts` still counts every run: revoice marks what each run rendered with it.)
    for (const { id } of await this.store.interrupted()) await this.countInterruption(id);
    for (const { id, n } of await this.store.crashLooping(MAX_ATTEMPTS)) await this.failCrashLoop(id, n);
    await this.store.requeueRunning();
    this.started = true;
    this.pump();
    await this.pumping;
  }

  private async countInterruption(id: string): Promise<void> {
    const job = await this.get(id);
    if (!job) return;
    const keptWork = this.kinds.get(job.kind)?.keptWork;
    await this.store.countInterruption(id, keptWork ? await keptWork(job) : 0, PROGRESS_EPSILON);
  }

  private async failCrashLoop(id: string, n: number): Promise<void> {
    const job = (await this.get(id))!;
    await this.finish(job, 'failed', `Processing was interrupted ${n} times at the same point (${Math.round(job.progress * 100)}%); retry it to try again.`);
    this.options.log?.(`job ${id} (${job.kind}) failed: interrupted ${n} times at the same point`);
    this.emit('settled', job);
  }

  /**
   * Team mode's worker: runs a job the queue engine delivered, and resolves once it is recorded. A job found
   * `running` was left by a worker that died (the engine delivers it again when that one's heartbeats stop): it
   * counts as an interruption, as at an embedded restart. Throws `JobHandedBack` when this worker stopped it
   * to stop itself, so the engine delivers it again.
   */
  async runDelivered(id: string): Promise<void> {
    if (this.stopping) throw new JobHandedBack('worker stopping');
    const found = await this.get(id);
    if (!found || SETTLED.has(found.status)) return; // cancelled, deleted, or settled before a crash
    if (found.status === 'running') {
      await this.countInterruption(id);
      const looping = (await this.store.crashLooping(MAX_ATTEMPTS)).find((j) => j.id === id);
      if (looping) return this.failCrashLoop(id, looping.n);
      await this.store.requeue(id);
    }
    if (!(await this.store.claim(id))) return;
    const job = await this.get(id);
    if (!job) return;
    // Which worker runs what: the first thing to look for in a team's logs.
    this.options.log?.(`job ${id} (${job.kind}) started, attempt ${job.attempts}`);
    this.launch(job);
    await this.running.get(id)?.done;
    if (job.status === 'queued') throw new JobHandedBack('worker stopping');
  }

  /** A worker stops its jobs whose records say cancelled (or that are gone: their recording was deleted). */
  private watchCancellations(): void {
    const look = async () => {
      const ids = [...this.running.keys()];
      if (ids.length === 0) return;
      const statuses = await this.store.statuses(ids);
      for (const id of ids) {
        const status = statuses.get(id);
        if (status === undefined || status === 'cancelled') this.running.get(id)?.controller.abort(new Error('cancelled'));
      }
    };
    this.watcher = setInterval(() => {
      look().catch((error: unknown) => this.options.log?.(`jobs: could not read cancellations: ${(error as Error)?.message ?? String(error)}`));
    }, this.options.pollMs ?? 1000);
    this.watcher.unref();
  }

  /** Stops running jobs and leaves them queued, to resume on the next start. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.watcher) clearInterval(this.watcher);
    this.watcher = null;
    for (const entry of this.running.values()) {
      entry.requeue = true;
      entry.controller.abort(new Error('service stopping'));
    }
    await Promise.allSettled([...this.running.values()].map((r) => r.done));
    await this.pumping;
  }

  async cancelSession(sessionId: string): Promise<void> {
    if (this.role !== 'embedded') return this.untilStopped(await this.store.cancelAll(sessionId));
    const ids = await this.store.sessionJobIds(sessionId);
    await this.store.cancelQueued(sessionId);
    const active = ids.map((id) => this.running.get(id)).filter((r) => r !== undefined);
    for (const entry of active) entry.controller.abort(new Error('session deleted'));
    await Promise.allSettled(active.map((r) => r.done));
  }

  async cancel(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    if (this.role !== 'embedded') return this.untilStopped(await this.store.cancelJobs(ids));
    await this.store.cancelJobs(ids);
    const active = ids.map((id) => this.running.get(id)).filter((r) => r !== undefined);
    for (const entry of active) entry.controller.abort(new Error('cancelled'));
    await Promise.allSettled(active.map((r) => r.done));
  }

  /** Team mode: the workers running these jobs see their records cancelled and stop them; waits (a while) until they say they have. */
  private async untilStopped(ids: string[]): Promise<void> {
    let running = ids;
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
    else if (this.role !== 'embedded') void this.pollUntilSettled(id, done, finish);
    return done;
  }

  /** Team mode: another process may run the job, so its record is read until it settles or the wait ends. */
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

  private pump(): void {
    // Team mode's jobs reach a worker through the queue engine only.
    if (this.role !== 'embedded') return;
    this.pumping = this.pumping.then(() =>
      this.launchQueued().catch((error: unknown) => {
        // The database refused a write (a full disk): the queue is tried again on the next enqueue or settle.
        this.options.log?.(`jobs: could not start the next job: ${(error as Error)?.message ?? String(error)}`);
      }),
    );
  }

  private async launchQueued(): Promise<void> {
    const kinds = [...this.handlers.keys()];
    const background = kinds.filter((kind) => this.kinds.get(kind)?.background);
    const quick = kinds.filter((kind) => this.kinds.get(kind)?.quick);
    while (this.started && !this.stopping) {
      let eligible = kinds;
      if (this.running.size >= (this.options.concurrency ?? 1)) {
        // Full: a quick job may still start in a slot of its own, one at a time.
        if (quick.length === 0 || [...this.running.values()].some((r) => r.quick)) return;
        eligible = quick;
      }
      const id = await this.store.nextQueued(eligible, background);
      if (!id) return;
      if (!(await this.store.claim(id))) continue;
      const job = await this.get(id);
      if (job) this.launch(job);
    }
  }

  private launch(job: JobRecord): void {
    const controller = new AbortController();
    const entry = { controller, requeue: false, done: Promise.resolve(), quick: this.kinds.get(job.kind)?.quick ?? false };
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
    };
    const handler = this.handlers.get(job.kind)!;
    entry.done = (async () => {
      let record: () => Promise<void>;
      try {
        const result = await handler({ job, signal: controller.signal, progress, publish });
        record = () => this.finish(job, 'complete', null, result ?? undefined);
      } catch (error) {
        if (entry.requeue) {
          record = async () => {
            await this.store.requeue(job.id);
            job.status = 'queued';
          };
        } else if (controller.signal.aborted) {
          record = () => this.finish(job, 'cancelled', 'cancelled');
        } else {
          const shown = error instanceof JobFailure ? error.message : userMessage(error);
          const message = shown ?? (isDiskFull(error) ? DISK_FULL_JOB_MESSAGE : 'Processing failed because of an internal error.');
          if (shown === null) this.options.log?.(`job ${job.id} (${job.kind}) failed: ${(error as Error)?.stack ?? String(error)}`);
          record = () => this.finish(job, 'failed', message);
        }
      }
      await writes.flush();
      // Recording the outcome, or a listener reacting to it, can fail too (a full disk): the job then stays
      // `running` in the database and resumes at the next start. The service must not die of it.
      await this.guarded(job, 'record its outcome', record);
      this.running.delete(job.id);
      await this.guarded(job, 'report its outcome', () => {
        this.emit('settled', job);
        return Promise.resolve();
      });
      setImmediate(() => this.pump());
    })();
  }

  private async guarded(job: JobRecord, what: string, action: () => Promise<void>): Promise<void> {
    try {
      await action();
    } catch (error) {
      this.options.log?.(`job ${job.id} (${job.kind}): could not ${what}: ${(error as Error)?.message ?? String(error)}`);
    }
  }

  private async finish(job: JobRecord, status: JobStatus, error: string | null, result?: Record<string, unknown>): Promise<void> {
    job.status = status;
    job.error = error;
    if (status === 'complete') job.progress = 1;
    if (result) job.result = result;
    await this.store.finish(job.id, status, error, job.progress, result);
  }
}
