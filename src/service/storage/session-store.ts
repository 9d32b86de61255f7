import type { Db } from './database';
import { Statements } from './statements';
import type { Media, MediaFormat, Session, SessionStatus, SessionSummary } from '../../shared/schemas';
import type { Transcript } from '../speech/types';

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

export function publicTranscript(transcript: Transcript): NonNullable<Session['transcript']> {
  return {
    text: transcript.text,
    speakers: transcript.speakers,
    engine: transcript.engine,
    segments: transcript.segments.map(({ id, speaker, start, end, text, words }) => ({ id, speaker, start, end, text, words })),
    ...(transcript.adaptation ? { adaptation: transcript.adaptation } : {}),
  };
}

export class SessionStore {
  /** The read routes' statements, prepared once. */
  private readonly statements: Statements;

  constructor(private readonly db: Db) {
    this.statements = new Statements(db);
  }

  insert(session: NewSession): void {
    this.db
      .prepare(
        `INSERT INTO sessions (id, project_id, file_name, stored_name, duration, format_json, language, created_at, status)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'queued')`,
      )
      .run(
        session.id,
        session.projectId,
        session.fileName,
        session.storedName,
        session.duration,
        JSON.stringify(session.format),
        session.language,
        new Date().toISOString(),
      );
  }

  /** The project a recording belongs to, or null when there is no such recording (every scoped request asks). */
  projectOf(id: string): string | null {
    const row = this.statements.get('SELECT project_id FROM sessions WHERE id = ?').get(id) as { project_id: string } | undefined;
    return row?.project_id ?? null;
  }

  summary(id: string): SessionSummary | null {
    const row = this.statements
      .get(`SELECT ${SUMMARY_COLUMNS} FROM sessions s JOIN projects p ON p.id = s.project_id WHERE s.id = ?`)
      .get(id) as SessionRow | undefined;
    return row ? toSummary(row) : null;
  }

  /** The on-disk name of the original file inside the session's folder. */
  storedName(id: string): string | null {
    const row = this.db.prepare('SELECT stored_name FROM sessions WHERE id = ?').get(id) as { stored_name: string } | undefined;
    return row?.stored_name ?? null;
  }

  transcript(id: string): Transcript | null {
    const row = this.db.prepare('SELECT transcript_json FROM sessions WHERE id = ?').get(id) as
      | { transcript_json: string | null }
      | undefined;
    return row?.transcript_json ? (JSON.parse(row.transcript_json) as Transcript) : null;
  }

  /** Lines in the session's transcript (0 without one), counted by SQLite without parsing the transcript. */
  segmentCount(id: string): number {
    const row = this.db.prepare("SELECT json_array_length(transcript_json, '$.segments') AS n FROM sessions WHERE id = ?").get(id) as
      | { n: number | null }
      | undefined;
    return row?.n ?? 0;
  }

  get(id: string): Omit<Session, 'speaker_map'> | null {
    const summary = this.summary(id);
    if (!summary) return null;
    const transcript = this.transcript(id);
    return { ...summary, transcript: transcript ? publicTranscript(transcript) : null };
  }

  /**
   * The session's change counter (`change_seq`, migration 8): SQLite triggers raise it on every write to the
   * session row, its speaker map, its project or the project's speakers, from any connection. Null for no
   * such session. Reading it costs one indexed integer; it is what the session and analysis documents are
   * cached and ETagged by.
   */
  changeSeq(id: string): number | null {
    const row = this.statements.get('SELECT change_seq FROM sessions WHERE id = ?').get(id) as { change_seq: number } | undefined;
    return row?.change_seq ?? null;
  }

  /**
   * `get()` with `speaker_map`, as UTF-8 JSON. The stored transcript is spliced in after one parse (to drop
   * its private fields); callers cache the result by `changeSeq`.
   */
  documentBytes(summary: SessionSummary, speakerMap: Session['speaker_map']): Buffer {
    const row = this.db.prepare('SELECT transcript_json FROM sessions WHERE id = ?').get(summary.id) as
      | { transcript_json: string | null }
      | undefined;
    const stored = row?.transcript_json;
    const transcript = stored ? JSON.stringify(publicTranscript(JSON.parse(stored) as Transcript)) : 'null';
    const head = JSON.stringify(summary);
    return Buffer.from(`${head.slice(0, -1)},"transcript":${transcript},"speaker_map":${JSON.stringify(speakerMap)}}`);
  }

  /** Newest first; `projectIds` narrows to the projects a limited key sees (an empty list: none). */
  list(filter: { projectId?: string; projectIds?: readonly string[] | null; limit: number; offset: number }): { data: SessionSummary[]; total: number } {
    const clauses: string[] = [];
    const params: string[] = [];
    if (filter.projectId) {
      clauses.push('s.project_id = ?');
      params.push(filter.projectId);
    }
    if (filter.projectIds) {
      clauses.push(filter.projectIds.length ? `s.project_id IN (${filter.projectIds.map(() => '?').join(', ')})` : '0');
      params.push(...filter.projectIds);
    }
    const where = clauses.length ? `WHERE ${clauses.join(' AND ')}` : '';
    const rows = this.statements
      .get(
        `SELECT ${SUMMARY_COLUMNS} FROM sessions s JOIN projects p ON p.id = s.project_id ${where}
         ORDER BY s.created_at DESC, s.rowid DESC LIMIT ? OFFSET ?`,
      )
      .all(...params, filter.limit, filter.offset) as SessionRow[];
    const total = (this.statements.get(`SELECT COUNT(*) AS n FROM sessions s ${where}`).get(...params) as { n: number }).n;
    return { data: rows.map(toSummary), total };
  }

  setMedia(id: string, media: Media): void {
    this.db.prepare('UPDATE sessions SET media_json = ? WHERE id = ?').run(JSON.stringify(media), id);
  }

  setProgress(id: string, status: SessionStatus, progress: number, stage: string | null, error: string | null = null): void {
    this.db
      .prepare('UPDATE sessions SET status = ?, progress = ?, stage = ?, error = ? WHERE id = ?')
      .run(status, progress, stage, error, id);
  }

  complete(id: string, transcript: Transcript): void {
    this.db
      .prepare("UPDATE sessions SET status = 'complete', progress = 1, stage = 'complete', error = NULL, transcript_json = ? WHERE id = ?")
      .run(JSON.stringify(transcript), id);
    // A truncated file's header still claims its full length; what decoded is the truth.
    this.db
      .prepare('UPDATE sessions SET duration = ? WHERE id = ? AND ? > 0 AND abs(duration - ?) > 0.5 + 0.01 * duration')
      .run(transcript.duration, id, transcript.duration, transcript.duration);
  }

  delete(id: string): boolean {
    return this.db.transaction(() => {
      this.db.prepare('DELETE FROM jobs WHERE session_id = ?').run(id);
      this.db.prepare('DELETE FROM session_speakers WHERE session_id = ?').run(id);
      return this.db.prepare('DELETE FROM sessions WHERE id = ?').run(id).changes > 0;
    })();
  }

  /**
   * After a crash or stop: sessions whose job will resume go back to queued; sessions transcribed inside
   * a request (no job) cannot resume and are marked failed.
   */
  recoverInterrupted(): void {
    const hasJob = "EXISTS (SELECT 1 FROM jobs j WHERE j.session_id = sessions.id AND j.status IN ('queued', 'running'))";
    this.db.transaction(() => {
      this.db.prepare(`UPDATE sessions SET status = 'queued', progress = 0, stage = 'queued' WHERE status = 'running' AND ${hasJob}`).run();
      this.db
        .prepare(`UPDATE sessions SET status = 'failed', stage = 'failed', error = ? WHERE status IN ('running', 'queued') AND NOT ${hasJob}`)
        .run('Interrupted: the service stopped before this transcription finished.');
    })();
  }

  allIds(): Set<string> {
    return new Set((this.db.prepare('SELECT id FROM sessions').all() as Array<{ id: string }>).map((r) => r.id));
  }
}
