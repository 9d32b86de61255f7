import crypto from 'node:crypto';
import { UniqueViolation, type Sql, type SqlValue } from './sql/sql';
import type { AnalysisRun, AnalysisSegment } from '../../shared/schemas/analysis';
import { inList, perCount } from './sql/placeholders';
import { pointReads, type FreshBatch } from './fresh-batch';
import { sqlOf, type TransactionScope } from './transaction-scope';

export type RunStatus = AnalysisRun['status'];

export interface RunRecord extends AnalysisRun {
  job_id: string | null;
  duration: number;
  timings: { total: number; stages: Record<string, number> };
}

export interface NewRun {
  sessionId: string;
  duration: number;
  version: string;
  /** Given when the run's job is queued with it (the job's payload names the run, so the id comes first). */
  id?: string;
  jobId?: string | null;
}

/**
 * The analysis tables (`analysis_runs`, `analysis_parts`, `analysis_lines`). A run's recording-level results
 * are stored per stage as named parts, its lines one row each as they are finished; both are the run's
 * checkpoints (a resumed run skips what is stored). Every write is one statement or one transaction, so a
 * kill -9 never leaves half a line or half a part.
 *
 * Every write that changes a run raises that run's `revision` in the same statement or transaction; a
 * session's analysis revision (part of its analysis document's ETag) is the sum over its runs, so it grows
 * with every change, survives restarts and reads the same from every node sharing the database.
 */
export interface AnalysisStore {
  /** This store writing in a transaction in progress (a job kind's settle writer's). */
  within(scope: TransactionScope): AnalysisStore;
  create(run: NewRun): Promise<RunRecord>;
  setJob(runId: string, jobId: string): Promise<void>;
  run(runId: string): Promise<RunRecord | null>;
  /** Newest first. */
  runs(sessionId: string): Promise<RunRecord[]>;
  latest(sessionId: string, statuses?: readonly RunStatus[]): Promise<RunRecord | null>;
  /** Grows with every change to the session's runs, their parts and lines; 0 before its first run. */
  revision(sessionId: string): Promise<number>;
  markRunning(runId: string): Promise<void>;
  /** Progress never goes backwards within a run, whatever a resumed worker reports. */
  progress(runId: string, stage: string, progress: number): Promise<void>;
  /** Adds processing seconds to a stage and to the run's total. */
  addTime(runId: string, stage: string | null, seconds: number): Promise<void>;
  savePart(runId: string, name: string, value: unknown): Promise<void>;
  parts(runId: string): Promise<Record<string, unknown>>;
  saveLines(runId: string, lines: readonly AnalysisSegment[]): Promise<void>;
  lines(runId: string): Promise<AnalysisSegment[]>;
  lineIds(runId: string): Promise<number[]>;
  /** Stored parts and lines of a run: its checkpoints, counted (a resumed run that adds to them got further). */
  keptWork(runId: string): Promise<number>;
  /** Settles a queued or running run; a settled one stays as it is. */
  finish(runId: string, status: 'complete' | 'failed' | 'unavailable', error: string | null, stage?: string): Promise<void>;
  /**
   * At start, before the job runner: a run whose job will resume goes back to queued; a run whose job is
   * gone or ended without settling it (a crash between the two writes) is failed with a reason.
   */
  recoverInterrupted(): Promise<void>;
  /** Back to queued when its job is re-queued (the service is stopping). */
  requeue(runId: string): Promise<void>;
}

interface RunRow extends Omit<RunRecord, 'timings' | 'session_id' | 'run_id'> {
  id: string;
  session_id: string;
  timings_json: string;
  revision: number;
  seq: number;
}

const RUN_COLUMNS =
  'id, session_id, job_id, status, stage, progress, version, error, duration, timings_json, created_at, started_at, completed_at';

function toRecord(row: RunRow): RunRecord {
  const { id, timings_json, revision: _revision, seq: _seq, ...rest } = row;
  return { ...rest, run_id: id, timings: JSON.parse(timings_json) as RunRecord['timings'] };
}

// The statements both paths (async and the job queue's synchronous one) share.
const SELECT_RUN = `SELECT ${RUN_COLUMNS} FROM analysis_runs WHERE id = ?`;
// `seq` numbers a session's runs in the order they were made (unique per session): newest is the highest.
// (VALUES rather than INSERT … SELECT: PostgreSQL types VALUES' parameters by their columns.)
const INSERT_RUN = `INSERT INTO analysis_runs (id, session_id, job_id, status, stage, progress, version, duration, created_at, seq)
  VALUES (?, ?, ?, 'queued', 'queued', 0, ?, ?, ?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM analysis_runs WHERE session_id = ?))`;
const KEPT_WORK = 'SELECT (SELECT count(*) FROM analysis_parts WHERE run_id = ?) + (SELECT count(*) FROM analysis_lines WHERE run_id = ?) AS n';

function latestSql(statuses: readonly RunStatus[] | undefined): string {
  const filter = statuses ? ` AND status IN (${inList(statuses)})` : '';
  return `SELECT ${RUN_COLUMNS} FROM analysis_runs WHERE session_id = ?${filter} ORDER BY seq DESC LIMIT 1`;
}

function insertParams(run: NewRun, id: string): SqlValue[] {
  return [id, run.sessionId, run.jobId ?? null, run.version, run.duration, new Date().toISOString(), run.sessionId];
}

const REVISIONS = perCount((ids) => `SELECT session_id, SUM(revision) AS revision FROM analysis_runs WHERE session_id IN (${ids}) GROUP BY session_id`);

/** One implementation for both databases, in portable SQL over `Sql`. */
export class SqlAnalysisStore implements AnalysisStore {
  /** Read on every GET of an analysis (its ETag), so many at once are one query. */
  private readonly revisions: FreshBatch<string, number>;

  constructor(private readonly sql: Sql) {
    type Row = { session_id: string; revision: number | string };
    this.revisions = pointReads(sql, async (ids: string[]) => new Map((await sql.all<Row>(REVISIONS(ids.length), ids)).map((r) => [r.session_id, Number(r.revision)])), 0);
  }

  async create(run: NewRun): Promise<RunRecord> {
    const id = run.id ?? crypto.randomUUID();
    // Two nodes making a run for one session at once may pick the same seq: the unique index refuses one, which takes the next.
    for (let attempt = 0; ; attempt++) {
      try {
        // A savepoint of its own inside a caller's transaction: on PostgreSQL a refused insert would abort the whole transaction.
        await this.sql.transaction((tx) => tx.run(INSERT_RUN, insertParams(run, id)));
        break;
      } catch (error) {
        if (!(error instanceof UniqueViolation) || attempt >= 20 || (await this.run(id))) throw error;
      }
    }
    return (await this.run(id))!;
  }

  async setJob(runId: string, jobId: string): Promise<void> {
    await this.sql.run('UPDATE analysis_runs SET job_id = ?, revision = revision + 1 WHERE id = ?', [jobId, runId]);
  }

  async run(runId: string): Promise<RunRecord | null> {
    const row = await this.sql.get<RunRow>(SELECT_RUN, [runId]);
    return row ? toRecord(row) : null;
  }

  async runs(sessionId: string): Promise<RunRecord[]> {
    const rows = await this.sql.all<RunRow>(`SELECT ${RUN_COLUMNS} FROM analysis_runs WHERE session_id = ? ORDER BY seq DESC`, [sessionId]);
    return rows.map(toRecord);
  }

  async latest(sessionId: string, statuses?: readonly RunStatus[]): Promise<RunRecord | null> {
    const row = await this.sql.get<RunRow>(latestSql(statuses), [sessionId, ...(statuses ?? [])]);
    return row ? toRecord(row) : null;
  }

  revision(sessionId: string): Promise<number> {
    return this.revisions.get(sessionId);
  }

  async markRunning(runId: string): Promise<void> {
    await this.sql.run(
      `UPDATE analysis_runs SET status = 'running', stage = CASE WHEN stage = 'queued' THEN 'decoding' ELSE stage END,
         started_at = COALESCE(started_at, ?), revision = revision + 1
       WHERE id = ? AND status IN ('queued', 'running')`,
      [new Date().toISOString(), runId],
    );
  }

  async progress(runId: string, stage: string, progress: number): Promise<void> {
    const value = Math.min(1, Math.max(0, progress));
    // CASE rather than SQLite's two-argument MAX (PostgreSQL's is GREATEST).
    await this.sql.run(
      `UPDATE analysis_runs SET stage = ?, progress = CASE WHEN progress > ? THEN progress ELSE ? END, revision = revision + 1
       WHERE id = ? AND status = 'running'`,
      [stage, value, value, runId],
    );
  }

  async addTime(runId: string, stage: string | null, seconds: number): Promise<void> {
    // Read, add, write back: the row is locked for it on PostgreSQL (SQLite's write transaction locks the file).
    const lock = this.sql.dialect === 'postgres' ? ' FOR UPDATE' : '';
    await this.sql.transaction(async (tx) => {
      const row = await tx.get<{ timings_json: string }>(`SELECT timings_json FROM analysis_runs WHERE id = ?${lock}`, [runId]);
      if (!row) return;
      const timings = JSON.parse(row.timings_json) as RunRecord['timings'];
      timings.total = round3(timings.total + seconds);
      if (stage) timings.stages[stage] = round3((timings.stages[stage] ?? 0) + seconds);
      await tx.run('UPDATE analysis_runs SET timings_json = ?, revision = revision + 1 WHERE id = ?', [JSON.stringify(timings), runId]);
    });
  }

  async savePart(runId: string, name: string, value: unknown): Promise<void> {
    await this.sql.transaction(async (tx) => {
      await tx.run('INSERT INTO analysis_parts (run_id, name, json) VALUES (?, ?, ?) ON CONFLICT (run_id, name) DO UPDATE SET json = excluded.json', [
        runId,
        name,
        JSON.stringify(value),
      ]);
      await tx.run('UPDATE analysis_runs SET revision = revision + 1 WHERE id = ?', [runId]);
    });
  }

  async parts(runId: string): Promise<Record<string, unknown>> {
    const rows = await this.sql.all<{ name: string; json: string }>('SELECT name, json FROM analysis_parts WHERE run_id = ? ORDER BY name', [runId]);
    return Object.fromEntries(rows.map((r) => [r.name, JSON.parse(r.json) as unknown]));
  }

  async saveLines(runId: string, lines: readonly AnalysisSegment[]): Promise<void> {
    await this.sql.transaction(async (tx) => {
      for (const line of lines) {
        await tx.run(
          'INSERT INTO analysis_lines (run_id, segment_id, json) VALUES (?, ?, ?) ON CONFLICT (run_id, segment_id) DO UPDATE SET json = excluded.json',
          [runId, line.id, JSON.stringify(line)],
        );
      }
      await tx.run('UPDATE analysis_runs SET revision = revision + 1 WHERE id = ?', [runId]);
    });
  }

  async lines(runId: string): Promise<AnalysisSegment[]> {
    const rows = await this.sql.all<{ json: string }>('SELECT json FROM analysis_lines WHERE run_id = ? ORDER BY segment_id', [runId]);
    return rows.map((r) => JSON.parse(r.json) as AnalysisSegment);
  }

  async lineIds(runId: string): Promise<number[]> {
    const rows = await this.sql.all<{ segment_id: number }>('SELECT segment_id FROM analysis_lines WHERE run_id = ? ORDER BY segment_id', [runId]);
    return rows.map((r) => Number(r.segment_id));
  }

  within(scope: TransactionScope): AnalysisStore {
    return new SqlAnalysisStore(sqlOf(scope));
  }

  async keptWork(runId: string): Promise<number> {
    return Number((await this.sql.get<{ n: number }>(KEPT_WORK, [runId, runId]))?.n ?? 0);
  }

  async finish(runId: string, status: 'complete' | 'failed' | 'unavailable', error: string | null, stage: string = status): Promise<void> {
    // A failed run keeps the progress it reached; the others are done.
    const progress = status === 'failed' ? 'progress' : '1';
    await this.sql.run(
      `UPDATE analysis_runs SET status = ?, stage = ?, error = ?, completed_at = ?, progress = ${progress}, revision = revision + 1
       WHERE id = ? AND status IN ('queued', 'running')`,
      [status, stage, error, new Date().toISOString(), runId],
    );
  }

  async recoverInterrupted(): Promise<void> {
    const live = "EXISTS (SELECT 1 FROM jobs j WHERE j.id = analysis_runs.job_id AND j.status IN ('queued', 'running'))";
    await this.sql.transaction(async (tx) => {
      await tx.run(`UPDATE analysis_runs SET status = 'queued', revision = revision + 1 WHERE status = 'running' AND ${live}`);
      await tx.run(
        `UPDATE analysis_runs SET status = 'failed', stage = 'failed', error = ?, completed_at = ?, revision = revision + 1
         WHERE status IN ('queued', 'running') AND NOT ${live}`,
        ['The analysis was interrupted and could not resume; start it again.', new Date().toISOString()],
      );
    });
  }

  async requeue(runId: string): Promise<void> {
    await this.sql.run("UPDATE analysis_runs SET status = 'queued', revision = revision + 1 WHERE id = ? AND status = 'running'", [runId]);
  }
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}
