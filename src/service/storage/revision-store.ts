import zlib from 'node:zlib';
import type { CorrectionRecord } from '../transcription/text-corrections';
import type { Db } from './database';
import type { Transcript } from '../speech/types';
import type { SessionStore } from './session-store';

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
}

interface Row {
  revision: number;
  created_at: string;
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
export class TranscriptRevisionStore {
  constructor(
    private readonly db: Db,
    private readonly sessions: SessionStore,
  ) {}

  /** The current revision number (0 when the transcript was never edited). */
  current(sessionId: string): number {
    const row = this.db.prepare('SELECT MAX(revision) AS n FROM transcript_revisions WHERE session_id = ?').get(sessionId) as { n: number | null };
    return row.n ?? 0;
  }

  list(sessionId: string, currentTranscript: Transcript | null): RevisionRecord[] {
    const rows = this.db
      .prepare('SELECT revision, created_at, edit_json, summary_json FROM transcript_revisions WHERE session_id = ? ORDER BY revision')
      .all(sessionId) as Row[];
    if (rows.length === 0 && currentTranscript) {
      // Never edited: the recognizer's transcript is the only revision.
      return [{ revision: 0, created_at: '', edit: null, speakers: currentTranscript.speakers, segments: currentTranscript.segments.length }];
    }
    return rows.map((r) => {
      const s = JSON.parse(r.summary_json) as { speakers: string[]; segments: number };
      return { revision: r.revision, created_at: r.created_at, edit: r.edit_json ? (JSON.parse(r.edit_json) as RevisionEdit) : null, ...s };
    });
  }

  /** A revision's transcript; revision 0 of a transcript never edited is the session's own. */
  get(sessionId: string, revision: number): Transcript | null {
    const row = this.db.prepare('SELECT transcript_gz FROM transcript_revisions WHERE session_id = ? AND revision = ?').get(sessionId, revision) as
      | { transcript_gz: Buffer }
      | undefined;
    if (row) return unpack(row.transcript_gz);
    if (revision === 0 && this.current(sessionId) === 0) return this.sessions.transcript(sessionId);
    return null;
  }

  /**
   * Stores `transcript` as the next revision and makes it the session's transcript, in one transaction
   * (run it inside the caller's when other writes belong with it). Returns the new revision number.
   */
  append(sessionId: string, transcript: Transcript, edit: RevisionEdit, leavingSpeakers: unknown): number {
    return this.db.transaction(() => {
      const now = new Date().toISOString();
      let current = this.current(sessionId);
      if (current === 0 && !this.exists(sessionId, 0)) {
        const original = this.sessions.transcript(sessionId);
        if (!original) throw new Error(`session ${sessionId} has no transcript`);
        this.insert(sessionId, 0, now, null, original);
        current = 0;
      }
      // The speaker map the revision being left had, so restoring it brings back the same project speakers.
      this.db
        .prepare('UPDATE transcript_revisions SET speakers_json = ? WHERE session_id = ? AND revision = ?')
        .run(JSON.stringify(leavingSpeakers), sessionId, current);
      const revision = current + 1;
      this.insert(sessionId, revision, now, edit, transcript);
      this.db.prepare('UPDATE sessions SET transcript_json = ? WHERE id = ?').run(JSON.stringify(transcript), sessionId);
      return revision;
    })();
  }

  /**
   * Replaces the current revision's voice profiles (measured after the edit) without a new revision.
   * False when another edit made a newer revision meanwhile (its own measurement follows).
   */
  setProfiles(sessionId: string, revision: number, profiles: Record<string, number[]>): boolean {
    return this.db.transaction(() => {
      if (this.current(sessionId) !== revision) return false;
      const transcript = this.sessions.transcript(sessionId);
      if (!transcript) return false;
      const updated = { ...transcript, profiles };
      this.db.prepare('UPDATE sessions SET transcript_json = ? WHERE id = ?').run(JSON.stringify(updated), sessionId);
      this.db.prepare('UPDATE transcript_revisions SET transcript_gz = ? WHERE session_id = ? AND revision = ?').run(pack(updated), sessionId, revision);
      return true;
    })();
  }

  /** The speaker map a revision had when it was left (null for the current one or one never left). */
  speakers(sessionId: string, revision: number): unknown {
    const row = this.db.prepare('SELECT speakers_json FROM transcript_revisions WHERE session_id = ? AND revision = ?').get(sessionId, revision) as
      | { speakers_json: string | null }
      | undefined;
    return row?.speakers_json ? (JSON.parse(row.speakers_json) as unknown) : null;
  }

  /** Forgets the history (a new recognizer transcript replaced the one it was built on). */
  discard(sessionId: string): void {
    this.db.prepare('DELETE FROM transcript_revisions WHERE session_id = ?').run(sessionId);
  }

  private exists(sessionId: string, revision: number): boolean {
    return this.db.prepare('SELECT 1 FROM transcript_revisions WHERE session_id = ? AND revision = ?').get(sessionId, revision) !== undefined;
  }

  private insert(sessionId: string, revision: number, at: string, edit: RevisionEdit | null, transcript: Transcript): void {
    this.db
      .prepare('INSERT INTO transcript_revisions (session_id, revision, created_at, edit_json, summary_json, transcript_gz) VALUES (?, ?, ?, ?, ?, ?)')
      .run(sessionId, revision, at, edit ? JSON.stringify(edit) : null, summary(transcript), pack(transcript));
  }
}
