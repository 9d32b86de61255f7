import crypto from 'node:crypto';
import type { Db } from '../storage/database';
import type { AnalysisRun, AnalysisSegment } from '../../shared/schemas/analysis';

export type RunStatus = AnalysisRun['status'];

export interface RunRecord extends AnalysisRun {
  job_id: string | null;
  duration: number;
  timings: { total: number; stages: Record<string, number> };
}

interface RunRow extends Omit<RunRecord, 'timings' | 'session_id' | 'run_id'> {
  id: string;
  session_id: string;
  timings_json: string;
}

function toRecord(row: RunRow): RunRecord {
  const { id, timings_json, ...rest } = row;
  return { ...rest, run_id: id, timings: JSON.parse(timings_json) as RunRecord['timings'] };
}

/**
 * Analysis runs in SQLite. A run's recording-level results are stored per stage as named parts, its lines
 * one row each as they are finished; both are the run's checkpoints (a resumed run skips what is stored).
 * Every write is one statement or one transaction, so a kill -9 never leaves half a line or half a part.
 */
export class AnalysisStore {
  /** Writes per session, and writes touching every session (start-up recovery): in memory, from 0 at each start. */
  private readonly sessionWrites = new Map<string, number>();
  private allWrites = 0;
  private readonly runSessions = new Map<string, string>();

  constructor(private readonly db: Db) {}

  /**
   * Grows with every write through this store to the session's runs (readers cache its analysis document
   * against it), so analysing one recording does not invalidate the others' cached documents.
   */
  revision(sessionId: string): number {
    return this.allWrites + (this.sessionWrites.get(sessionId) ?? 0);
  }

  private wrote(sessionId: string): void {
    this.sessionWrites.set(sessionId, (this.sessionWrites.get(sessionId) ?? 0) + 1);
  }

  private wroteRun(runId: string): void {
    let sessionId = this.runSessions.get(runId);
    if (sessionId === undefined) {
      sessionId = (this.db.prepare('SELECT session_id FROM analysis_runs WHERE id = ?').get(runId) as { session_id: string } | undefined)?.session_id;
      if (sessionId === undefined) return; // no such run: nothing was written
      this.runSessions.set(runId, sessionId);
    }
    this.wrote(sessionId);
  }

  create(sessionId: string, duration: number, version: string): RunRecord {
    this.wrote(sessionId);
    const id = crypto.randomUUID();
    this.runSessions.set(id, sessionId);
    this.db
      .prepare(
        "INSERT INTO analysis_runs (id, session_id, status, stage, progress, version, duration, created_at) VALUES (?, ?, 'queued', 'queued', 0, ?, ?, ?)",
      )
      .run(id, sessionId, version, duration, new Date().toISOString());
    return this.run(id)!;
  }

  setJob(runId: string, jobId: string): void {
    this.wroteRun(runId);
    this.db.prepare('UPDATE analysis_runs SET job_id = ? WHERE id = ?').run(jobId, runId);
  }

  run(runId: string): RunRecord | null {
    const row = this.db.prepare('SELECT * FROM analysis_runs WHERE id = ?').get(runId) as RunRow | undefined;
    return row ? toRecord(row) : null;
  }

  /** Newest first. */
  runs(sessionId: string): RunRecord[] {
    const rows = this.db.prepare('SELECT * FROM analysis_runs WHERE session_id = ? ORDER BY created_at DESC, rowid DESC').all(sessionId) as RunRow[];
    return rows.map(toRecord);
  }

  latest(sessionId: string, statuses?: RunStatus[]): RunRecord | null {
    const filter = statuses ? `AND status IN (${statuses.map(() => '?').join(',')})` : '';
    const row = this.db
      .prepare(`SELECT * FROM analysis_runs WHERE session_id = ? ${filter} ORDER BY created_at DESC, rowid DESC LIMIT 1`)
      .get(sessionId, ...(statuses ?? [])) as RunRow | undefined;
    return row ? toRecord(row) : null;
  }

  markRunning(runId: string): void {
    this.wroteRun(runId);
    this.db
      .prepare(
        "UPDATE analysis_runs SET status = 'running', stage = CASE WHEN stage = 'queued' THEN 'decoding' ELSE stage END, started_at = COALESCE(started_at, ?) WHERE id = ? AND status IN ('queued', 'running')",
      )
      .run(new Date().toISOString(), runId);
  }

  /** Progress never goes backwards within a run, whatever a resumed worker reports. */
  progress(runId: string, stage: string, progress: number): void {
    this.wroteRun(runId);
    this.db
      .prepare("UPDATE analysis_runs SET stage = ?, progress = MAX(progress, ?) WHERE id = ? AND status = 'running'")
      .run(stage, Math.min(1, Math.max(0, progress)), runId);
  }

  /** Adds processing seconds to a stage and to the run's total. */
  addTime(runId: string, stage: string | null, seconds: number): void {
    this.wroteRun(runId);
    this.db.transaction(() => {
      const run = this.run(runId);
      if (!run) return;
      const timings = run.timings;
      timings.total = round3(timings.total + seconds);
      if (stage) timings.stages[stage] = round3((timings.stages[stage] ?? 0) + seconds);
      this.db.prepare('UPDATE analysis_runs SET timings_json = ? WHERE id = ?').run(JSON.stringify(timings), runId);
    })();
  }

  savePart(runId: string, name: string, value: unknown): void {
    this.wroteRun(runId);
    this.db.prepare('INSERT OR REPLACE INTO analysis_parts (run_id, name, json) VALUES (?, ?, ?)').run(runId, name, JSON.stringify(value));
  }

  parts(runId: string): Record<string, unknown> {
    const rows = this.db.prepare('SELECT name, json FROM analysis_parts WHERE run_id = ?').all(runId) as Array<{ name: string; json: string }>;
    return Object.fromEntries(rows.map((r) => [r.name, JSON.parse(r.json) as unknown]));
  }

  saveLines(runId: string, lines: AnalysisSegment[]): void {
    this.wroteRun(runId);
    const insert = this.db.prepare('INSERT OR REPLACE INTO analysis_lines (run_id, segment_id, json) VALUES (?, ?, ?)');
    this.db.transaction(() => {
      for (const line of lines) insert.run(runId, line.id, JSON.stringify(line));
    })();
  }

  lines(runId: string): AnalysisSegment[] {
    const rows = this.db.prepare('SELECT json FROM analysis_lines WHERE run_id = ? ORDER BY segment_id').all(runId) as Array<{ json: string }>;
    return rows.map((r) => JSON.parse(r.json) as AnalysisSegment);
  }

  lineIds(runId: string): number[] {
    return (this.db.prepare('SELECT segment_id FROM analysis_lines WHERE run_id = ? ORDER BY segment_id').all(runId) as Array<{ segment_id: number }>).map(
      (r) => r.segment_id,
    );
  }

  /** Stored parts and lines of a run: its checkpoints, counted (a resumed run that adds to them got further). */
  keptWork(runId: string): number {
    const row = this.db.prepare('SELECT (SELECT count(*) FROM analysis_parts WHERE run_id = ?) + (SELECT count(*) FROM analysis_lines WHERE run_id = ?) AS n').get(runId, runId);
    return (row as { n: number }).n;
  }

  finish(runId: string, status: 'complete' | 'failed' | 'unavailable', error: string | null, stage: string = status): void {
    this.wroteRun(runId);
    this.db
      .prepare(
        `UPDATE analysis_runs SET status = ?, stage = ?, error = ?, completed_at = ?,
           progress = CASE WHEN ? = 'failed' THEN progress ELSE 1 END
         WHERE id = ? AND status IN ('queued', 'running')`,
      )
      .run(status, stage, error, new Date().toISOString(), status, runId);
  }

  /**
   * At start, before the job runner: a run whose job will resume goes back to queued; a run whose job is
   * gone or ended without settling it (a crash between the two writes) is failed with a reason.
   */
  recoverInterrupted(): void {
    this.allWrites++;
    const live = "EXISTS (SELECT 1 FROM jobs j WHERE j.id = analysis_runs.job_id AND j.status IN ('queued', 'running'))";
    this.db.transaction(() => {
      this.db.prepare(`UPDATE analysis_runs SET status = 'queued' WHERE status = 'running' AND ${live}`).run();
      this.db
        .prepare(`UPDATE analysis_runs SET status = 'failed', stage = 'failed', error = ?, completed_at = ? WHERE status IN ('queued', 'running') AND NOT ${live}`)
        .run('The analysis was interrupted and could not resume; start it again.', new Date().toISOString());
    })();
  }

  /** Back to queued when its job is re-queued (the service is stopping). */
  requeue(runId: string): void {
    this.wroteRun(runId);
    this.db.prepare("UPDATE analysis_runs SET status = 'queued' WHERE id = ? AND status = 'running'").run(runId);
  }
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}
