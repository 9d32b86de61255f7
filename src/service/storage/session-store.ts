import type { Sql } from './sql/sql';
import type { Media, MediaFormat, Session, SessionStatus, SessionSummary } from '../../shared/schemas';
import type { Transcript } from '../speech/types';
import { publicTranscript } from '../speech/public-transcript';
import { inList, perCount } from './sql/placeholders';
import { pointReads, type FreshBatch } from './fresh-batch';
import { sqlOf, type TransactionScope } from './transaction-scope';

interface SessionRow {
  id: string;
  project_id: string;
  project_key: string;
  project_name: string;
  file_name: string;
  stored_name: string;
  duration: number;
  format_json: string;
  language: string;
  created_at: string;
  status: SessionStatus;
  progress: number;
  stage: string | null;
  error: string | null;
  media_json: string | null;
  transcript_json?: string | null;
}

export interface NewSession {
  id: string;
  projectId: string;
  fileName: string;
  storedName: string;
  duration: number;
  format: MediaFormat;
  language: string;
}

const SUMMARY_COLUMNS = `s.id, s.project_id, p.key AS project_key, p.name AS project_name, s.file_name, s.stored_name, s.duration,
  s.format_json, s.language, s.created_at, s.status, s.progress, s.stage, s.error, s.media_json`;

function toSummary(row: SessionRow): SessionSummary {
  return {
    id: row.id,
    project: { id: row.project_id, key: row.project_key, name: row.project_name },
    file_name: row.file_name,
    duration: row.duration,
    format: JSON.parse(row.format_json) as MediaFormat,
    created_at: row.created_at,
    status: row.status,
    progress: row.progress,
    stage: row.stage,
    error: row.error,
    language: row.language,
    media: row.media_json ? (JSON.parse(row.media_json) as Media) : null,
  };
}

/** A list page of sessions, newest first. */
export interface SessionPage {
  data: SessionSummary[];
  total: number;
}

/** The `sessions` table: a recording, its status and progress, and its transcript. */
export interface SessionStore {
  /** This store writing in a transaction in progress (a job kind's settle writer's). */
  within(scope: TransactionScope): SessionStore;
  insert(session: NewSession): Promise<void>;
  /** The project a recording belongs to, or null when there is no such recording (every scoped request asks). */
  projectOf(id: string): Promise<string | null>;
  /**
   * Inside a transaction: holds the recording's row until it ends (PostgreSQL's `FOR UPDATE`; SQLite's
   * transactions already run one at a time), so two API nodes deciding from the same reads take turns. False
   * when there is no such recording.
   */
  lock(id: string): Promise<boolean>;
  summary(id: string): Promise<SessionSummary | null>;
  /** The on-disk name of the original file inside the session's folder. */
  storedName(id: string): Promise<string | null>;
  transcript(id: string): Promise<Transcript | null>;
  /** Lines in the session's transcript (0 without one), counted by the database without parsing it here. */
  segmentCount(id: string): Promise<number>;
  get(id: string): Promise<Omit<Session, 'speaker_map'> | null>;
  /**
   * The session's change counter (`change_seq`, migration 8): triggers raise it on every write to the
   * session row, its speaker map, its project or the project's speakers, from any connection. Null for no
   * such session. It is what the session and analysis documents are cached and ETagged by.
   */
  changeSeq(id: string): Promise<number | null>;
  /**
   * `get()` with `speaker_map`, as UTF-8 JSON. The stored transcript is spliced in after one parse (to drop
   * its private fields); callers cache the result by `changeSeq`.
   */
  documentBytes(summary: SessionSummary, speakerMap: Session['speaker_map']): Promise<Buffer>;
  /** Newest first; `projectIds` narrows to the projects a limited key sees (an empty list: none). */
  list(filter: { projectId?: string; projectIds?: readonly string[] | null; limit: number; offset: number }): Promise<SessionPage>;
  setMedia(id: string, media: Media): Promise<void>;
  setProgress(id: string, status: SessionStatus, progress: number, stage: string | null, error?: string | null): Promise<void>;
  complete(id: string, transcript: Transcript): Promise<void>;
  /**
   * The recording's status following its transcription job (running, failed, or queued again), unless its
   * transcript is stored (complete): that one outlives the job, and a job delivered again must find it so.
   */
  followJob(id: string, status: 'running' | 'failed' | 'queued', progress: number, stage: string, error?: string | null): Promise<void>;
  /** Replaces the transcript of a finished session (an edit's revision, profiles measured after it). */
  setTranscript(id: string, transcript: Transcript): Promise<void>;
  delete(id: string): Promise<boolean>;
  /**
   * After a crash or stop: sessions whose job will resume go back to queued; sessions transcribed inside
   * a request (no job) cannot resume and are marked failed.
   */
  recoverInterrupted(): Promise<void>;
  allIds(): Promise<Set<string>>;
}

const CHANGE_SEQS = perCount((ids) => `SELECT id, change_seq FROM sessions WHERE id IN (${ids})`);
const PROJECTS_OF = perCount((ids) => `SELECT id, project_id FROM sessions WHERE id IN (${ids})`);

export class SqlSessionStore implements SessionStore {
  /** Read on every GET of a session or its analysis (the ETag), so many at once are one query. */
  private readonly changeSeqs: FreshBatch<string, number | null>;
  /** Read on every request under a recording by a key limited to projects (its scope), likewise. */
  private readonly projects: FreshBatch<string, string | null>;

  constructor(private readonly sql: Sql) {
    this.changeSeqs = pointReads(sql, async (ids: string[]) => new Map((await sql.all<{ id: string; change_seq: number }>(CHANGE_SEQS(ids.length), ids)).map((r) => [r.id, r.change_seq])), null);
    this.projects = pointReads(sql, async (ids: string[]) => new Map((await sql.all<{ id: string; project_id: string }>(PROJECTS_OF(ids.length), ids)).map((r) => [r.id, r.project_id])), null);
  }

  async insert(session: NewSession): Promise<void> {
    await this.sql.run(
      `INSERT INTO sessions (id, project_id, file_name, stored_name, duration, format_json, language, created_at, status)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'queued')`,
      [session.id, session.projectId, session.fileName, session.storedName, session.duration, JSON.stringify(session.format), session.language, new Date().toISOString()],
    );
  }

  async lock(id: string): Promise<boolean> {
    const lock = this.sql.dialect === 'postgres' ? ' FOR UPDATE' : '';
    return (await this.sql.get(`SELECT id FROM sessions WHERE id = ?${lock}`, [id])) !== undefined;
  }

  projectOf(id: string): Promise<string | null> {
    return this.projects.get(id);
  }

  async summary(id: string): Promise<SessionSummary | null> {
    const row = await this.sql.get<SessionRow>(`SELECT ${SUMMARY_COLUMNS} FROM sessions s JOIN projects p ON p.id = s.project_id WHERE s.id = ?`, [id]);
    return row ? toSummary(row) : null;
  }

  async storedName(id: string): Promise<string | null> {
    return (await this.sql.get<{ stored_name: string }>('SELECT stored_name FROM sessions WHERE id = ?', [id]))?.stored_name ?? null;
  }

  async transcript(id: string): Promise<Transcript | null> {
    const row = await this.sql.get<{ transcript_json: string | null }>('SELECT transcript_json FROM sessions WHERE id = ?', [id]);
    return row?.transcript_json ? (JSON.parse(row.transcript_json) as Transcript) : null;
  }

  async segmentCount(id: string): Promise<number> {
    const count =
      this.sql.dialect === 'sqlite'
        ? "json_array_length(transcript_json, '$.segments')"
        : "json_array_length(CAST(transcript_json AS json) -> 'segments')";
    return (await this.sql.get<{ n: number | null }>(`SELECT ${count} AS n FROM sessions WHERE id = ?`, [id]))?.n ?? 0;
  }

  async get(id: string): Promise<Omit<Session, 'speaker_map'> | null> {
    const summary = await this.summary(id);
    if (!summary) return null;
    const transcript = await this.transcript(id);
    return { ...summary, transcript: transcript ? publicTranscript(transcript) : null };
  }

  changeSeq(id: string): Promise<number | null> {
    return this.changeSeqs.get(id);
  }

  async documentBytes(summary: SessionSummary, speakerMap: Session['speaker_map']): Promise<Buffer> {
    const row = await this.sql.get<{ transcript_json: string | null }>('SELECT transcript_json FROM sessions WHERE id = ?', [summary.id]);
    const stored = row?.transcript_json;
    const transcript = stored ? JSON.stringify(publicTranscript(JSON.parse(stored) as Transcript)) : 'null';
    const head = JSON.stringify(summary);
    return Buffer.from(`${head.slice(0, -1)},"transcript":${transcript},"speaker_map":${JSON.stringify(speakerMap)}}`);
  }

  async list(filter: { projectId?: string; projectIds?: readonly string[] | null; limit: number; offset: number }): Promise<SessionPage> {
    const clauses: string[] = [];
    const params: string[] = [];
    if (filter.projectId) {
      clauses.push('s.project_id = ?');
      params.push(filter.projectId);
    }
    if (filter.projectIds) {
      clauses.push(filter.projectIds.length ? `s.project_id IN (${inList(filter.projectIds)})` : '1 = 0');
      params.push(...filter.projectIds);
    }
    const where = clauses.length ? `WHERE ${clauses.join(' AND ')}` : '';
    // Sessions made in the same millisecond keep their order of arrival where the database records one.
    const tieBreak = this.sql.dialect === 'sqlite' ? 's.rowid DESC' : 's.id DESC';
    // The total by a count of its own: a window count (one round trip) would build every matching row, each
    // with its format and media, before the page is cut from them.
    const rows = await this.sql.all<SessionRow>(
      `SELECT ${SUMMARY_COLUMNS} FROM sessions s JOIN projects p ON p.id = s.project_id ${where}
       ORDER BY s.created_at DESC, ${tieBreak} LIMIT ? OFFSET ?`,
      [...params, filter.limit, filter.offset],
    );
    const total = (await this.sql.get<{ n: number }>(`SELECT COUNT(*) AS n FROM sessions s ${where}`, params))!.n;
    return { data: rows.map(toSummary), total };
  }

  async setMedia(id: string, media: Media): Promise<void> {
    await this.sql.run('UPDATE sessions SET media_json = ? WHERE id = ?', [JSON.stringify(media), id]);
  }

  async setProgress(id: string, status: SessionStatus, progress: number, stage: string | null, error: string | null = null): Promise<void> {
    await this.sql.run('UPDATE sessions SET status = ?, progress = ?, stage = ?, error = ? WHERE id = ?', [status, progress, stage, error, id]);
  }

  within(scope: TransactionScope): SessionStore {
    return new SqlSessionStore(sqlOf(scope));
  }

  async followJob(id: string, status: 'running' | 'failed' | 'queued', progress: number, stage: string, error: string | null = null): Promise<void> {
    await this.sql.run("UPDATE sessions SET status = ?, progress = ?, stage = ?, error = ? WHERE id = ? AND status <> 'complete'", [status, progress, stage, error, id]);
  }

  async complete(id: string, transcript: Transcript): Promise<void> {
    await this.sql.transaction(async (tx) => {
      await tx.run("UPDATE sessions SET status = 'complete', progress = 1, stage = 'complete', error = NULL, transcript_json = ? WHERE id = ?", [
        JSON.stringify(transcript),
        id,
      ]);
      // A truncated file's header still claims its full length; what decoded is the truth.
      if (transcript.duration > 0) {
        await tx.run('UPDATE sessions SET duration = ? WHERE id = ? AND abs(duration - ?) > 0.5 + 0.01 * duration', [transcript.duration, id, transcript.duration]);
      }
    });
  }

  async setTranscript(id: string, transcript: Transcript): Promise<void> {
    await this.sql.run('UPDATE sessions SET transcript_json = ? WHERE id = ?', [JSON.stringify(transcript), id]);
  }

  async delete(id: string): Promise<boolean> {
    return this.sql.transaction(async (tx) => {
      await tx.run('DELETE FROM jobs WHERE session_id = ?', [id]);
      await tx.run('DELETE FROM session_speakers WHERE session_id = ?', [id]);
      return (await tx.run('DELETE FROM sessions WHERE id = ?', [id])).changes > 0;
    });
  }

  async recoverInterrupted(): Promise<void> {
    const hasJob = "EXISTS (SELECT 1 FROM jobs j WHERE j.session_id = sessions.id AND j.status IN ('queued', 'running'))";
    await this.sql.transaction(async (tx) => {
      await tx.run(`UPDATE sessions SET status = 'queued', progress = 0, stage = 'queued' WHERE status = 'running' AND ${hasJob}`);
      await tx.run(`UPDATE sessions SET status = 'failed', stage = 'failed', error = ? WHERE status IN ('running', 'queued') AND NOT ${hasJob}`, [
        'Interrupted: the service stopped before this transcription finished.',
      ]);
    });
  }

  async allIds(): Promise<Set<string>> {
    return new Set((await this.sql.all<{ id: string }>('SELECT id FROM sessions')).map((r) => r.id));
  }
}
