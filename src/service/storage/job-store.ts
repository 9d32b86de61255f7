import type { Db } from './database';
import type { JobRecord, JobStatus } from '../jobs/job-runner';

/**
 * The `jobs` table: the embedded job queue's rows. Synchronous, unlike the other stores: the runner and the
 * writes that queue work inside another store's SQLite transaction (a transcript and its analysis, a dub and
 * its preparation) run on the one embedded connection. Team mode replaces this queue (issue 34), so its SQL
 * stays SQLite's.
 */
export class SqliteJobStore {
  constructor(private readonly db: Db) {}

  insert(id: string, kind: string, sessionId: string, payload: Record<string, unknown>): void {
    this.db
      .prepare("INSERT INTO jobs (id, kind, session_id, status, payload_json, created_at) VALUES (?, ?, ?, 'queued', ?, ?)")
      .run(id, kind, sessionId, JSON.stringify(payload), new Date().toISOString());
  }

  get(id: string): JobRecord | null {
    const row = this.db.prepare('SELECT * FROM jobs WHERE id = ?').get(id) as (Omit<JobRecord, 'payload'> & { payload_json: string }) | undefined;
    if (!row) return null;
    const { payload_json, ...rest } = row;
    return { ...rest, payload: JSON.parse(payload_json) as Record<string, unknown> } as JobRecord;
  }

  /** Jobs left `running` by a process that stopped. */
  interrupted(): Array<{ id: string; kind: string }> {
    return this.db.prepare("SELECT id, kind FROM jobs WHERE status = 'running'").all() as Array<{ id: string; kind: string }>;
  }

  /**
   * Counts an interruption: back to 1 when the job got further than at its best (progress beyond `epsilon`, or
   * more kept work), else one more at the same point.
   */
  countInterruption(id: string, keptWork: number, epsilon: number): void {
    this.db
      .prepare(
        'UPDATE jobs SET stalled_interruptions = CASE WHEN progress > best_progress + ? OR ? > best_kept_work THEN 1 ELSE stalled_interruptions + 1 END, best_progress = max(best_progress, progress), best_kept_work = max(best_kept_work, ?) WHERE id = ?',
      )
      .run(epsilon, keptWork, keptWork, id);
  }

  /** Running jobs interrupted at least `times` times at the same point. */
  crashLooping(times: number): Array<{ id: string; n: number }> {
    return this.db.prepare("SELECT id, stalled_interruptions AS n FROM jobs WHERE status = 'running' AND stalled_interruptions >= ?").all(times) as Array<{
      id: string;
      n: number;
    }>;
  }

  requeueRunning(): void {
    this.db.prepare("UPDATE jobs SET status = 'queued' WHERE status = 'running'").run();
  }

  requeue(id: string): void {
    this.db.prepare("UPDATE jobs SET status = 'queued' WHERE id = ?").run(id);
  }

  sessionJobIds(sessionId: string): string[] {
    return (this.db.prepare('SELECT id FROM jobs WHERE session_id = ?').all(sessionId) as Array<{ id: string }>).map((r) => r.id);
  }

  cancelQueued(sessionId: string): void {
    this.db.prepare("UPDATE jobs SET status = 'cancelled' WHERE session_id = ? AND status = 'queued'").run(sessionId);
  }

  /** The session's newest job of a kind. */
  latest(kind: string, sessionId: string): { id: string; status: JobStatus; payload: Record<string, unknown> } | null {
    const row = this.db
      .prepare('SELECT id, status, payload_json FROM jobs WHERE kind = ? AND session_id = ? ORDER BY created_at DESC, rowid DESC LIMIT 1')
      .get(kind, sessionId) as { id: string; status: JobStatus; payload_json: string } | undefined;
    return row ? { id: row.id, status: row.status, payload: JSON.parse(row.payload_json) as Record<string, unknown> } : null;
  }

  /** True when a job of `kind` for the session is queued and not yet started. */
  waiting(kind: string, sessionId: string): boolean {
    return this.db.prepare("SELECT 1 FROM jobs WHERE session_id = ? AND kind = ? AND status = 'queued'").get(sessionId, kind) !== undefined;
  }

  /** The oldest queued job of these kinds, those of `background` kinds after all others. */
  nextQueued(kinds: readonly string[], background: readonly string[]): string | null {
    if (kinds.length === 0) return null;
    const backgroundLast = background.length ? `kind IN (${background.map(() => '?').join(',')}), ` : '';
    const row = this.db
      .prepare(`SELECT id FROM jobs WHERE status = 'queued' AND kind IN (${kinds.map(() => '?').join(',')}) ORDER BY ${backgroundLast}created_at, rowid LIMIT 1`)
      .get(...kinds, ...background) as { id: string } | undefined;
    return row?.id ?? null;
  }

  markRunning(id: string): void {
    this.db.prepare("UPDATE jobs SET status = 'running', attempts = attempts + 1, started_at = ? WHERE id = ?").run(new Date().toISOString(), id);
  }

  setProgress(id: string, progress: number, stage: string | null): void {
    this.db.prepare('UPDATE jobs SET progress = ?, stage = ? WHERE id = ?').run(progress, stage, id);
  }

  finish(id: string, status: JobStatus, error: string | null, progress: number): void {
    this.db.prepare('UPDATE jobs SET status = ?, error = ?, progress = ?, finished_at = ? WHERE id = ?').run(status, error, progress, new Date().toISOString(), id);
  }
}
