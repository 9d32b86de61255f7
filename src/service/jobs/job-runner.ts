import { userMessage } from '../errors';
import crypto from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { Db } from '../storage/database';
import { SqliteJobStore } from '../storage/job-store';
import { DISK_FULL_JOB_MESSAGE, isDiskFull } from '../storage/disk-full';

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
}

export interface JobContext {
  job: JobRecord;
  /** Aborted when the service stops (the job is re-queued) or the session is deleted. */
  signal: AbortSignal;
  progress(fraction: number, stage?: string): void;
}

export type JobHandler = (ctx: JobContext) => Promise<void>;

export interface JobKindOptions {
  /**
   * How much finished work the kind has kept for a job (its checkpoints: chunks, lines, stages). Read at a
   * restart: more of it than at the previous interruption means the job got further, whatever its progress
   * fraction says (that one is advisory, written a few times a second and not in step with the checkpoints,
   * e.g. when chunks finish out of order).
   */
  keptWork?: (job: JobRecord) => number;
  /**
   * Work no one waits on and no other job reads (the analysis). A queued job of a kind without this flag starts
   * first, so a new upload or a revoice is not kept behind every analysis still queued. Speaker adaptation and
   * voice profiles are not background: the next recording's decoding and speaker matching read what they write.
   */
  background?: boolean;
}

/** An error whose message is meant for the user (why a recording could not be processed). */
export class JobFailure extends Error {}

export interface JobEvents {
  progress: [job: JobRecord];
  settled: [job: JobRecord];
}

const MAX_ATTEMPTS = 3;
/** Progress beyond the best so far by more than this counts as getting further. */
const PROGRESS_EPSILON = 0.001;

/**
 * Durable background jobs in SQLite. A job is a row; a crash leaves it `running`, and the next start puts
 * it back in the queue, so work resumes after a restart. Handlers are registered per kind, so later kinds
 * (analysis stages, dubbing) drop in without touching the runner. Queued jobs start oldest first, those of
 * background kinds after all others.
 */
export class JobRunner extends EventEmitter<JobEvents> {
  private readonly handlers = new Map<string, JobHandler>();
  private readonly kinds = new Map<string, JobKindOptions>();
  private readonly running = new Map<string, { controller: AbortController; done: Promise<void>; requeue: boolean }>();
  private started = false;
  private stopping = false;
  private readonly store: SqliteJobStore;

  constructor(
    db: Db,
    private readonly options: { concurrency?: number; log?: (line: string) => void } = {},
  ) {
    super();
    this.store = new SqliteJobStore(db);
  }

  register(kind: string, handler: JobHandler): void;
  register(kind: string, options: JobKindOptions, handler: JobHandler): void;
  register(kind: string, ...args: [JobHandler] | [JobKindOptions, JobHandler]): void {
    const [options, handler] = args.length === 1 ? [{}, args[0]] : args;
    this.handlers.set(kind, handler);
    this.kinds.set(kind, options);
  }

  enqueue(kind: string, sessionId: string, payload: Record<string, unknown> = {}): string {
    const id = crypto.randomUUID();
    this.store.insert(id, kind, sessionId, payload);
    setImmediate(() => this.pump());
    return id;
  }

  get(id: string): JobRecord | null {
    return this.store.get(id);
  }

  /** True when a job of `kind` for the session is queued and not yet started. */
  waiting(kind: string, sessionId: string): boolean {
    return this.store.waiting(kind, sessionId);
  }

  start(): void {
    // Whatever was running when the process died is queued again, unless it has already taken the
    // process down several times (then it would crash-loop).
    // A job that got further than before the previous interruption is making progress (checkpoints keep
    // it): its count of interruptions starts again. Only one dying at the same point again and again is
    // crash-looping. (`attempts` still counts every run: revoice marks what each run rendered with it.)
    for (const { id, kind } of this.store.interrupted()) {
      const keptWork = this.kinds.get(kind)?.keptWork;
      const kept = keptWork ? keptWork(this.get(id)!) : 0;
      this.store.countInterruption(id, kept, PROGRESS_EPSILON);
    }
    for (const { id, n } of this.store.crashLooping(MAX_ATTEMPTS)) {
      const job = this.get(id)!;
      this.finish(job, 'failed', `Processing was interrupted ${n} times at the same point (${Math.round(job.progress * 100)}%); retry it to try again.`);
      this.options.log?.(`job ${id} (${job.kind}) failed: interrupted ${n} times at the same point`);
      this.emit('settled', job);
    }
    this.store.requeueRunning();
    this.started = true;
    this.stopping = false;
    this.pump();
  }

  /** Stops running jobs and leaves them queued, to resume on the next start. */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const entry of this.running.values()) {
      entry.requeue = true;
      entry.controller.abort(new Error('service stopping'));
    }
    await Promise.allSettled([...this.running.values()].map((r) => r.done));
  }

  /** Cancels the jobs of a session that is going away. */
  async cancelSession(sessionId: string): Promise<void> {
    const ids = this.store.sessionJobIds(sessionId);
    this.store.cancelQueued(sessionId);
    const active = ids.map((id) => this.running.get(id)).filter((r) => r !== undefined);
    for (const entry of active) entry.controller.abort(new Error('session deleted'));
    await Promise.allSettled(active.map((r) => r.done));
  }

  /**
   * Queues a failed job's work again as a new job (same kind, session and payload), at the user's request.
   * Returns the new job's id, or null when the session's newest job of that kind has not failed. Work that
   * never had a job (a transcription made inside a request that a crash interrupted) gets a fresh one.
   */
  retry(kind: string, sessionId: string): string | null {
    const last = this.store.latest(kind, sessionId);
    if (!last) return this.enqueue(kind, sessionId, {});
    if (last.status !== 'failed') return null;
    return this.enqueue(kind, sessionId, last.payload);
  }

  private nextQueued(): JobRecord | null {
    const kinds = [...this.handlers.keys()];
    const id = this.store.nextQueued(
      kinds,
      kinds.filter((kind) => this.kinds.get(kind)?.background),
    );
    return id ? this.get(id) : null;
  }

  private pump(): void {
    try {
      this.launchQueued();
    } catch (error) {
      // The database refused a write (a full disk): the queue is tried again on the next enqueue or settle.
      this.options.log?.(`jobs: could not start the next job: ${(error as Error)?.message ?? String(error)}`);
    }
  }

  private launchQueued(): void {
    if (!this.started || this.stopping) return;
    while (this.running.size < (this.options.concurrency ?? 1)) {
      const job = this.nextQueued();
      if (!job) return;
      this.store.markRunning(job.id);
      job.status = 'running';
      job.attempts += 1;
      this.launch(job);
    }
  }

  private launch(job: JobRecord): void {
    const controller = new AbortController();
    const entry = { controller, requeue: false, done: Promise.resolve() };
    this.running.set(job.id, entry);
    let lastWrite = 0;
    const progress = (fraction: number, stage?: string) => {
      job.progress = Math.max(0, Math.min(1, fraction));
      if (stage !== undefined) job.stage = stage;
      const now = Date.now();
      // Progress is advisory: write at most a few times a second.
      if (now - lastWrite > 250 || fraction >= 1) {
        lastWrite = now;
        this.guarded(job, 'write its progress', () => this.store.setProgress(job.id, job.progress, job.stage));
      }
      this.emit('progress', job);
    };
    const handler = this.handlers.get(job.kind)!;
    entry.done = (async () => {
      let record: () => void;
      try {
        await handler({ job, signal: controller.signal, progress });
        record = () => this.finish(job, 'complete', null);
      } catch (error) {
        if (entry.requeue) {
          record = () => {
            this.store.requeue(job.id);
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
      // Recording the outcome, or a listener reacting to it, can fail too (a full disk): the job then stays
      // `running` in the database and resumes at the next start. The service must not die of it.
      this.guarded(job, 'record its outcome', record);
      this.running.delete(job.id);
      this.guarded(job, 'report its outcome', () => this.emit('settled', job));
      setImmediate(() => this.pump());
    })();
  }

  private guarded(job: JobRecord, what: string, action: () => void): void {
    try {
      action();
    } catch (error) {
      this.options.log?.(`job ${job.id} (${job.kind}): could not ${what}: ${(error as Error)?.message ?? String(error)}`);
    }
  }

  private finish(job: JobRecord, status: JobStatus, error: string | null): void {
    job.status = status;
    job.error = error;
    if (status === 'complete') job.progress = 1;
    this.store.finish(job.id, status, error, job.progress);
  }
}
