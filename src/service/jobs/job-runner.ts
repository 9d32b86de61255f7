import crypto from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { Db } from '../storage/database';

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

/** An error whose message is meant for the user (why a recording could not be processed). */
export class JobFailure extends Error {}

export interface JobEvents {
  progress: [job: JobRecord];
  settled: [job: JobRecord];
}

const MAX_ATTEMPTS = 3;

/**
 * Durable background jobs in SQLite. A job is a row; a crash leaves it `running`, and the next start puts
 * it back in the queue, so work resumes after a restart. Handlers are registered per kind, so later kinds
 * (analysis stages, dubbing) drop in without touching the runner.
 */
export class JobRunner extends EventEmitter<JobEvents> {
  private readonly handlers = new Map<string, JobHandler>();
  private readonly running = new Map<string, { controller: AbortController; done: Promise<void>; requeue: boolean }>();
  private started = false;
  private stopping = false;

  constructor(
    private readonly db: Db,
    private readonly options: { concurrency?: number; log?: (line: string) => void } = {},
  ) {
    super();
  }

  register(kind: string, handler: JobHandler): void {
    this.handlers.set(kind, handler);
  }

  enqueue(kind: string, sessionId: string, payload: Record<string, unknown> = {}): string {
    const id = crypto.randomUUID();
    this.db
      .prepare("INSERT INTO jobs (id, kind, session_id, status, payload_json, created_at) VALUES (?, ?, ?, 'queued', ?, ?)")
      .run(id, kind, sessionId, JSON.stringify(payload), new Date().toISOString());
    setImmediate(() => this.pump());
    return id;
  }

  get(id: string): JobRecord | null {
    const row = this.db.prepare('SELECT * FROM jobs WHERE id = ?').get(id) as (Omit<JobRecord, 'payload'> & { payload_json: string }) | undefined;
    if (!row) return null;
    const { payload_json, ...rest } = row;
    return { ...rest, payload: JSON.parse(payload_json) as Record<string, unknown> } as JobRecord;
  }

  start(): void {
    // Whatever was running when the process died is queued again, unless it has already taken the
    // process down several times (then it would crash-loop).
    const crashLooping = this.db.prepare("SELECT id FROM jobs WHERE status = 'running' AND attempts >= ?").all(MAX_ATTEMPTS) as Array<{ id: string }>;
    for (const { id } of crashLooping) {
      const job = this.get(id)!;
      this.finish(job, 'failed', 'Processing was interrupted too many times.');
      this.emit('settled', job);
    }
    this.db.prepare("UPDATE jobs SET status = 'queued' WHERE status = 'running'").run();
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
    const ids = (this.db.prepare('SELECT id FROM jobs WHERE session_id = ?').all(sessionId) as Array<{ id: string }>).map((r) => r.id);
    this.db.prepare("UPDATE jobs SET status = 'cancelled' WHERE session_id = ? AND status = 'queued'").run(sessionId);
    const active = ids.map((id) => this.running.get(id)).filter((r) => r !== undefined);
    for (const entry of active) entry.controller.abort(new Error('session deleted'));
    await Promise.allSettled(active.map((r) => r.done));
  }

  private nextQueued(): JobRecord | null {
    const kinds = [...this.handlers.keys()];
    if (kinds.length === 0) return null;
    const row = this.db
      .prepare(`SELECT id FROM jobs WHERE status = 'queued' AND kind IN (${kinds.map(() => '?').join(',')}) ORDER BY created_at, rowid LIMIT 1`)
      .get(...kinds) as { id: string } | undefined;
    return row ? this.get(row.id) : null;
  }

  private pump(): void {
    if (!this.started || this.stopping) return;
    while (this.running.size < (this.options.concurrency ?? 1)) {
      const job = this.nextQueued();
      if (!job) return;
      this.db
        .prepare("UPDATE jobs SET status = 'running', attempts = attempts + 1, started_at = ? WHERE id = ?")
        .run(new Date().toISOString(), job.id);
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
        this.db.prepare('UPDATE jobs SET progress = ?, stage = ? WHERE id = ?').run(job.progress, job.stage, job.id);
      }
      this.emit('progress', job);
    };
    const handler = this.handlers.get(job.kind)!;
    entry.done = (async () => {
      try {
        await handler({ job, signal: controller.signal, progress });
        this.finish(job, 'complete', null);
      } catch (error) {
        if (entry.requeue) {
          this.db.prepare("UPDATE jobs SET status = 'queued' WHERE id = ?").run(job.id);
          job.status = 'queued';
        } else if (controller.signal.aborted) {
          this.finish(job, 'cancelled', 'cancelled');
        } else {
          const message = error instanceof JobFailure ? error.message : 'Processing failed because of an internal error.';
          if (!(error instanceof JobFailure)) this.options.log?.(`job ${job.id} (${job.kind}) failed: ${(error as Error)?.stack ?? String(error)}`);
          this.finish(job, 'failed', message);
        }
      } finally {
        this.running.delete(job.id);
        this.emit('settled', job);
        setImmediate(() => this.pump());
      }
    })();
  }

  private finish(job: JobRecord, status: JobStatus, error: string | null): void {
    job.status = status;
    job.error = error;
    if (status === 'complete') job.progress = 1;
    this.db
      .prepare('UPDATE jobs SET status = ?, error = ?, progress = ?, finished_at = ? WHERE id = ?')
      .run(status, error, job.progress, new Date().toISOString(), job.id);
  }
}
