import type { JobRecord, JobStatus } from '../jobs/job-record';
import type { Sql } from './sql/sql';
import { inList } from './sql/placeholders';
import { scopeOf, type TransactionScope } from './transaction-scope';

/** How a job ended, or (`queued`) that it goes back to the queue (its process stopping). */
export type JobOutcome =
  | { status: 'queued' }
  | { status: Exclude<JobStatus, 'queued' | 'running'>; error: string | null; progress: number; result?: Record<string, unknown> };

/** What a job's end writes beside its record (its kind's tables), in the transaction `scope`. */
export type SettleWrite = (scope: TransactionScope) => Promise<void>;

/**
 * The `jobs` table: every job's record (status, progress, attempts, interruptions), whichever process runs it.
 * Portable SQL on the embedded SQLite file and on PostgreSQL; queueing work inside another store's transaction
 * (a transcript and its analysis, a dub and its preparation) is an insert through that transaction's store.
 */
export interface JobStore {
  /** `background`: the kind's work waits behind every other kind's (the queue engine's priority). */
  insert(id: string, kind: string, sessionId: string, payload: Record<string, unknown>, options?: { background?: boolean }): Promise<void>;
  get(id: string): Promise<JobRecord | null>;
  /** Jobs left `running` by a process that stopped. */
  interrupted(): Promise<Array<{ id: string; kind: string }>>;
  /** Every job recorded as running, wherever it runs (or ran, when its worker died). */
  runningJobs(): Promise<JobRecord[]>;
  /**
   * Sets a running job's stage only if it is still the same run (`attempts` unchanged: no worker took it over
   * since it was read) and does not say so already. True when it changed.
   */
  setStageOfRun(id: string, attempts: number, stage: string): Promise<boolean>;
  /**
   * Counts an interruption: back to 1 when the job got further than at its best (progress beyond `epsilon`, or
   * more kept work), else one more at the same point.
   */
  countInterruption(id: string, keptWork: number, epsilon: number): Promise<void>;
  /** Running jobs interrupted at least `times` times at the same point. */
  crashLooping(times: number): Promise<Array<{ id: string; n: number }>>;
  requeueRunning(): Promise<void>;
  requeue(id: string): Promise<void>;
  sessionJobIds(sessionId: string): Promise<string[]>;
  cancelQueued(sessionId: string): Promise<void>;
  /**
   * Team mode: cancels a session's queued and running jobs in their records (the worker running one sees it and
   * stops it). Returns the running ones, whose worker records when it stopped (`finished_at`).
   */
  cancelAll(sessionId: string): Promise<string[]>;
  /**
   * Cancels these jobs in their records if they are queued or running (a worker running one sees it and stops
   * it). Returns the running ones, whose runner records when it stopped (`finished_at`).
   */
  cancelJobs(ids: readonly string[]): Promise<string[]>;
  /** Of these jobs, those a runner has not yet recorded as ended. */
  unfinished(ids: readonly string[]): Promise<string[]>;
  /** The status of each of these jobs that still exists. */
  statuses(ids: readonly string[]): Promise<Map<string, JobStatus>>;
  /** The session's newest job of a kind. */
  latest(kind: string, sessionId: string): Promise<{ id: string; status: JobStatus; payload: Record<string, unknown> } | null>;
  /** True when a job of `kind` for the session is queued and not yet started. */
  waiting(kind: string, sessionId: string): Promise<boolean>;
  /** The session's jobs of a kind that are queued or running, with their payloads, oldest first. */
  unfinishedOfKind(kind: string, sessionId: string): Promise<Array<{ id: string; payload: Record<string, unknown> }>>;
  /** The oldest queued job of these kinds, those of `background` kinds after all others. */
  nextQueued(kinds: readonly string[], background: readonly string[]): Promise<string | null>;
  /** Takes a queued job for running; false when another runner took it first (or it was cancelled). */
  claim(id: string): Promise<boolean>;
  setProgress(id: string, progress: number, stage: string | null): Promise<void>;
  /** `result`: what the job found (kept as it was when not given). */
  finish(id: string, status: JobStatus, error: string | null, progress: number, result?: Record<string, unknown>): Promise<void>;
  /**
   * Records a job's outcome and runs `alongside` in the same transaction: what the job's end writes into its kind's
   * tables commits with its record, or neither does (the job then stays `running` and is recovered).
   */
  settle(id: string, outcome: JobOutcome, alongside?: SettleWrite): Promise<void>;
  /** What a running job has found so far, for whoever waits on it in another process. */
  setResult(id: string, result: Record<string, unknown>): Promise<void>;
  /** When the job was queued (ISO time), or null when there is no such job. */
  queuedAt(id: string): Promise<string | null>;
  /** How many jobs of each kind have each status (the metrics, read at scrape time). */
  counts(): Promise<Array<{ kind: string; status: JobStatus; n: number }>>;
}

type JobRow = Omit<JobRecord, 'payload' | 'result'> & { payload_json: string; result_json: string | null };

function record(row: JobRow): JobRecord {
  const { payload_json, result_json, ...rest } = row;
  return {
    id: rest.id,
    kind: rest.kind,
    session_id: rest.session_id,
    status: rest.status,
    payload: JSON.parse(payload_json) as Record<string, unknown>,
    progress: rest.progress,
    stage: rest.stage,
    error: rest.error,
    attempts: rest.attempts,
    result: result_json === null ? null : (JSON.parse(result_json) as Record<string, unknown>),
  };
}

/**
 * Hands a job just recorded to the queue engine, on the same connection or transaction (team mode: pg-boss
 * delivers it to a worker, and only if the transaction commits).
 */
export type JobDispatch = (sql: Sql, job: { id: string; kind: string; background: boolean }) => Promise<void>;

export class SqlJobStore implements JobStore {
  constructor(
    private readonly sql: Sql,
    private readonly dispatch?: JobDispatch,
  ) {}

  async insert(id: string, kind: string, sessionId: string, payload: Record<string, unknown>, options: { background?: boolean } = {}): Promise<void> {
    // seq orders jobs queued in the same millisecond (created_at is an ISO time), as SQLite's rowid did.
    await this.sql.run(
      "INSERT INTO jobs (id, kind, session_id, status, payload_json, created_at, seq) VALUES (?, ?, ?, 'queued', ?, ?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM jobs))",
      [id, kind, sessionId, JSON.stringify(payload), new Date().toISOString()],
    );
    await this.dispatch?.(this.sql, { id, kind, background: options.background ?? false });
  }

  async get(id: string): Promise<JobRecord | null> {
    const row = await this.sql.get<JobRow>('SELECT * FROM jobs WHERE id = ?', [id]);
    return row ? record(row) : null;
  }

  interrupted(): Promise<Array<{ id: string; kind: string }>> {
    return this.sql.all("SELECT id, kind FROM jobs WHERE status = 'running' ORDER BY seq", []);
  }

  async runningJobs(): Promise<JobRecord[]> {
    return (await this.sql.all<JobRow>("SELECT * FROM jobs WHERE status = 'running' ORDER BY seq", [])).map(record);
  }

  async setStageOfRun(id: string, attempts: number, stage: string): Promise<boolean> {
    const { changes } = await this.sql.run(
      "UPDATE jobs SET stage = ? WHERE id = ? AND status = 'running' AND attempts = ? AND (stage IS NULL OR stage <> ?)",
      [stage, id, attempts, stage],
    );
    return changes === 1;
  }

  async countInterruption(id: string, keptWork: number, epsilon: number): Promise<void> {
    await this.sql.run(
      `UPDATE jobs SET
         stalled_interruptions = CASE WHEN progress > best_progress + ? OR ? > best_kept_work THEN 1 ELSE stalled_interruptions + 1 END,
         best_progress = CASE WHEN progress > best_progress THEN progress ELSE best_progress END,
         best_kept_work = CASE WHEN ? > best_kept_work THEN ? ELSE best_kept_work END
       WHERE id = ?`,
      [epsilon, keptWork, keptWork, keptWork, id],
    );
  }

  crashLooping(times: number): Promise<Array<{ id: string; n: number }>> {
    return this.sql.all("SELECT id, stalled_interruptions AS n FROM jobs WHERE status = 'running' AND stalled_interruptions >= ? ORDER BY seq", [times]);
  }

  async requeueRunning(): Promise<void> {
    await this.sql.run("UPDATE jobs SET status = 'queued' WHERE status = 'running'");
  }

  async requeue(id: string): Promise<void> {
    await this.sql.run("UPDATE jobs SET status = 'queued' WHERE id = ?", [id]);
  }

  async sessionJobIds(sessionId: string): Promise<string[]> {
    return (await this.sql.all<{ id: string }>('SELECT id FROM jobs WHERE session_id = ? ORDER BY seq', [sessionId])).map((r) => r.id);
  }

  async cancelQueued(sessionId: string): Promise<void> {
    await this.sql.run("UPDATE jobs SET status = 'cancelled' WHERE session_id = ? AND status = 'queued'", [sessionId]);
  }

  async cancelAll(sessionId: string): Promise<string[]> {
    const running = await this.sql.all<{ id: string }>("SELECT id FROM jobs WHERE session_id = ? AND status = 'running' ORDER BY seq", [sessionId]);
    await this.sql.run("UPDATE jobs SET status = 'cancelled', error = 'cancelled' WHERE session_id = ? AND status IN ('queued', 'running')", [sessionId]);
    return running.map((r) => r.id);
  }

  async cancelJobs(ids: readonly string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    const running = await this.sql.all<{ id: string }>(`SELECT id FROM jobs WHERE status = 'running' AND id IN (${inList(ids)}) ORDER BY seq`, ids as string[]);
    await this.sql.run(`UPDATE jobs SET status = 'cancelled', error = 'cancelled' WHERE status IN ('queued', 'running') AND id IN (${inList(ids)})`, ids as string[]);
    return running.map((r) => r.id);
  }

  async unfinished(ids: readonly string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    return (await this.sql.all<{ id: string }>(`SELECT id FROM jobs WHERE finished_at IS NULL AND id IN (${inList(ids)})`, ids as string[])).map((r) => r.id);
  }

  async statuses(ids: readonly string[]): Promise<Map<string, JobStatus>> {
    if (ids.length === 0) return new Map();
    const rows = await this.sql.all<{ id: string; status: JobStatus }>(`SELECT id, status FROM jobs WHERE id IN (${inList(ids)})`, ids as string[]);
    return new Map(rows.map((r) => [r.id, r.status]));
  }

  async latest(kind: string, sessionId: string): Promise<{ id: string; status: JobStatus; payload: Record<string, unknown> } | null> {
    const row = await this.sql.get<{ id: string; status: JobStatus; payload_json: string }>(
      'SELECT id, status, payload_json FROM jobs WHERE kind = ? AND session_id = ? ORDER BY created_at DESC, seq DESC LIMIT 1',
      [kind, sessionId],
    );
    return row ? { id: row.id, status: row.status, payload: JSON.parse(row.payload_json) as Record<string, unknown> } : null;
  }

  async waiting(kind: string, sessionId: string): Promise<boolean> {
    return (await this.sql.get("SELECT 1 AS one FROM jobs WHERE session_id = ? AND kind = ? AND status = 'queued'", [sessionId, kind])) !== undefined;
  }

  async unfinishedOfKind(kind: string, sessionId: string): Promise<Array<{ id: string; payload: Record<string, unknown> }>> {
    const rows = await this.sql.all<{ id: string; payload_json: string }>(
      "SELECT id, payload_json FROM jobs WHERE session_id = ? AND kind = ? AND status IN ('queued', 'running') ORDER BY seq",
      [sessionId, kind],
    );
    return rows.map((r) => ({ id: r.id, payload: JSON.parse(r.payload_json) as Record<string, unknown> }));
  }

  async nextQueued(kinds: readonly string[], background: readonly string[]): Promise<string | null> {
    if (kinds.length === 0) return null;
    const backgroundLast = background.length ? `CASE WHEN kind IN (${inList(background)}) THEN 1 ELSE 0 END, ` : '';
    const row = await this.sql.get<{ id: string }>(
      `SELECT id FROM jobs WHERE status = 'queued' AND kind IN (${inList(kinds)}) ORDER BY ${backgroundLast}created_at, seq LIMIT 1`,
      [...kinds, ...background],
    );
    return row?.id ?? null;
  }

  async claim(id: string): Promise<boolean> {
    const { changes } = await this.sql.run("UPDATE jobs SET status = 'running', attempts = attempts + 1, started_at = ? WHERE id = ? AND status = 'queued'", [
      new Date().toISOString(),
      id,
    ]);
    return changes === 1;
  }

  async setProgress(id: string, progress: number, stage: string | null): Promise<void> {
    await this.sql.run('UPDATE jobs SET progress = ?, stage = ? WHERE id = ?', [progress, stage, id]);
  }

  async finish(id: string, status: JobStatus, error: string | null, progress: number, result?: Record<string, unknown>): Promise<void> {
    await this.sql.run('UPDATE jobs SET status = ?, error = ?, progress = ?, finished_at = ?, result_json = COALESCE(?, result_json) WHERE id = ?', [
      status,
      error,
      progress,
      new Date().toISOString(),
      result === undefined ? null : JSON.stringify(result),
      id,
    ]);
  }

  async settle(id: string, outcome: JobOutcome, alongside?: SettleWrite): Promise<void> {
    await this.sql.transaction(async (tx) => {
      const jobs = new SqlJobStore(tx, this.dispatch);
      if (outcome.status === 'queued') await jobs.requeue(id);
      else await jobs.finish(id, outcome.status, outcome.error, outcome.progress, outcome.result);
      await alongside?.(scopeOf(tx));
    });
  }

  async queuedAt(id: string): Promise<string | null> {
    return (await this.sql.get<{ created_at: string }>('SELECT created_at FROM jobs WHERE id = ?', [id]))?.created_at ?? null;
  }

  async counts(): Promise<Array<{ kind: string; status: JobStatus; n: number }>> {
    const rows = await this.sql.all<{ kind: string; status: JobStatus; n: number | string }>('SELECT kind, status, COUNT(*) AS n FROM jobs GROUP BY kind, status', []);
    return rows.map((r) => ({ kind: r.kind, status: r.status, n: Number(r.n) }));
  }

  async setResult(id: string, result: Record<string, unknown>): Promise<void> {
    await this.sql.run('UPDATE jobs SET result_json = ? WHERE id = ?', [JSON.stringify(result), id]);
  }
}
