import zlib from 'node:zlib';
import type { CorrectionRecord } from '../transcription/text-corrections';
import type { Sql } from './sql/sql';
import type { Transcript } from '../speech/types';
import { SqlSessionStore } from './session-store';

/** What an editor did to make a revision (stored as given; `touched` lists labels whose speech changed). */
export type RevisionEdit = (
  | { op: 'reassign'; segment_id: number; word_start: number | null; word_end: number | null; from: string; speaker: string; speaker_id: string | null; touched: string[] }
  | { op: 'merge'; from: string; into: string; touched: string[] }
  | { op: 'split'; segment_id: number; word_index: number; touched: string[] }
  | { op: 'restore'; revision: number; touched: string[] }
  // Word corrections (transcription/text-corrections.ts): `lines` says which words were aligned or interpolated.
  | { op: 'edit_text'; segment_id: number; word_start: number | null; word_end: number | null; lines: CorrectionRecord[]; touched: string[] }
  | { op: 'replace'; find: string; replace: string; match_case: boolean; whole_words: boolean; matches: number; lines: CorrectionRecord[]; touched: string[] }
  // Script alignment (transcription/script-align.ts): how many words, how many the aligner placed.
  | { op: 'align_script'; words: number; aligned: number; interpolated: number; speaker_names: Record<string, string> | null; touched: string[] }
) & {
  // Typed words the recognizer's dictionary lacked, added to the project's vocabulary (transcription/correction-learning.ts).
  vocabulary_added?: string[];
};

export interface RevisionRecord {
  revision: number;
  created_at: string;
  /** Null for revision 0, the recognizer's transcript. */
  edit: RevisionEdit | null;
  speakers: string[];
  segments: number;
  /** Who made it, as people read it (audit/actor.ts); null for revision 0. */
  author: string | null;
}

interface Row {
  revision: number;
  created_at: string;
  author: string | null;
  edit_json: string | null;
  summary_json: string;
}

const pack = (t: Transcript) => zlib.gzipSync(JSON.stringify(t));
const unpack = (b: Buffer) => JSON.parse(zlib.gunzipSync(b).toString('utf8')) as Transcript;
const summary = (t: Transcript) => JSON.stringify({ speakers: t.speakers, segments: t.segments.length });

/**
 * Transcript revisions: the recognizer's transcript is revision 0 (saved when the first edit is made), each
 * edit adds the next. The session row keeps the current revision's transcript, so the session, exports
 * and the analysis read edits without knowing about revisions. Snapshots are gzipped JSON (≈10× smaller).
 */
export interface TranscriptRevisionStore {
  /** The current revision number (0 when the transcript was never edited). */
  current(sessionId: string): Promise<number>;
  list(sessionId: string, currentTranscript: Transcript | null): Promise<RevisionRecord[]>;
  /** A revision's transcript; revision 0 of a transcript never edited is the session's own. */
  get(sessionId: string, revision: number): Promise<Transcript | null>;
  /**
   * Stores `transcript` as the next revision and makes it the session's transcript, in one transaction
   * (a savepoint inside the caller's when other writes belong with it). Returns the new revision number.
   */
  append(sessionId: string, transcript: Transcript, edit: RevisionEdit, leavingSpeakers: unknown, author?: string | null): Promise<number>;
  /**
   * Replaces the current revision's voice profiles (measured after the edit) without a new revision.
   * False when another edit made a newer revision meanwhile (its own measurement follows).
   */
  setProfiles(sessionId: string, revision: number, profiles: Record<string, number[]>): Promise<boolean>;
  /** The speaker map a revision had when it was left (null for the current one or one never left). */
  speakers(sessionId: string, revision: number): Promise<unknown>;
  /** Forgets the history (a new recognizer transcript replaced the one it was built on). */
  discard(sessionId: string): Promise<void>;
}

export class SqlRevisionStore implements TranscriptRevisionStore {
  constructor(private readonly sql: Sql) {}

  async current(sessionId: string): Promise<number> {
    const row = await this.sql.get<{ n: number | null }>('SELECT MAX(revision) AS n FROM transcript_revisions WHERE session_id = ?', [sessionId]);
    return row?.n ?? 0;
  }

  async list(sessionId: string, currentTranscript: Transcript | null): Promise<RevisionRecord[]> {
    const rows = await this.sql.all<Row>('SELECT revision, created_at, author, edit_json, summary_json FROM transcript_revisions WHERE session_id = ? ORDER BY revision', [sessionId]);
    if (rows.length === 0 && currentTranscript) {
      // Never edited: the recognizer's transcript is the only revision.
      return [{ revision: 0, created_at: '', edit: null, speakers: currentTranscript.speakers, segments: currentTranscript.segments.length, author: null }];
    }
    return rows.map((r) => {
      const s = JSON.parse(r.summary_json) as { speakers: string[]; segments: number };
      return { revision: r.revision, created_at: r.created_at, edit: r.edit_json ? (JSON.parse(r.edit_json) as RevisionEdit) : null, ...s, author: r.author };
    });
  }

  async get(sessionId: string, revision: number): Promise<Transcript | null> {
    const row = await this.sql.get<{ transcript_gz: Buffer }>('SELECT transcript_gz FROM transcript_revisions WHERE session_id = ? AND revision = ?', [sessionId, revision]);
    if (row) return unpack(row.transcript_gz);
    if (revision === 0 && (await this.current(sessionId)) === 0) return new SqlSessionStore(this.sql).transcript(sessionId);
    return null;
  }

  append(sessionId: string, transcript: Transcript, edit: RevisionEdit, leavingSpeakers: unknown, author: string | null = null): Promise<number> {
    return this.sql.transaction(async (tx) => {
      const revisions = new SqlRevisionStore(tx);
      const sessions = new SqlSessionStore(tx);
      const now = new Date().toISOString();
      const current = await revisions.current(sessionId);
      if (current === 0 && !(await revisions.exists(sessionId, 0))) {
        const original = await sessions.transcript(sessionId);
        if (!original) throw new Error(`session ${sessionId} has no transcript`);
        await revisions.insert(sessionId, 0, now, null, original, null);
      }
      // The speaker map the revision being left had, so restoring it brings back the same project speakers.
      await tx.run('UPDATE transcript_revisions SET speakers_json = ? WHERE session_id = ? AND revision = ?', [JSON.stringify(leavingSpeakers), sessionId, current]);
      const revision = current + 1;
      await revisions.insert(sessionId, revision, now, edit, transcript, author);
      await sessions.setTranscript(sessionId, transcript);
      return revision;
    });
  }

  setProfiles(sessionId: string, revision: number, profiles: Record<string, number[]>): Promise<boolean> {
    return this.sql.transaction(async (tx) => {
      const sessions = new SqlSessionStore(tx);
      if ((await new SqlRevisionStore(tx).current(sessionId)) !== revision) return false;
      const transcript = await sessions.transcript(sessionId);
      if (!transcript) return false;
      const updated = { ...transcript, profiles };
      await sessions.setTranscript(sessionId, updated);
      await tx.run('UPDATE transcript_revisions SET transcript_gz = ? WHERE session_id = ? AND revision = ?', [pack(updated), sessionId, revision]);
      return true;
    });
  }

  async speakers(sessionId: string, revision: number): Promise<unknown> {
    const row = await this.sql.get<{ speakers_json: string | null }>('SELECT speakers_json FROM transcript_revisions WHERE session_id = ? AND revision = ?', [sessionId, revision]);
    return row?.speakers_json ? (JSON.parse(row.speakers_json) as unknown) : null;
  }

  async discard(sessionId: string): Promise<void> {
    await this.sql.run('DELETE FROM transcript_revisions WHERE session_id = ?', [sessionId]);
  }

  private async exists(sessionId: string, revision: number): Promise<boolean> {
    return (await this.sql.get('SELECT 1 AS found FROM transcript_revisions WHERE session_id = ? AND revision = ?', [sessionId, revision])) !== undefined;
  }

  private async insert(sessionId: string, revision: number, at: string, edit: RevisionEdit | null, transcript: Transcript, author: string | null): Promise<void> {
    await this.sql.run('INSERT INTO transcript_revisions (session_id, revision, created_at, author, edit_json, summary_json, transcript_gz) VALUES (?, ?, ?, ?, ?, ?, ?)', [
      sessionId,
      revision,
      at,
      author,
      edit ? JSON.stringify(edit) : null,
      summary(transcript),
      pack(transcript),
    ]);
  }
}
