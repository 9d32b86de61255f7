import type { Db } from '../storage/database';
import type { LineRender, WordTiming } from '../../shared/schemas';
import type { SampleFormat } from '../media/wav';

export type DubStatus = 'preparing' | 'ready' | 'failed';
export type DubSource = 'upload' | 'recording';
export type ReviewStatus = 'todo' | 'needs_changes' | 'approved';
export type RevoiceStatus = 'queued' | 'running' | 'complete' | 'failed';

export interface DubRecord {
  id: string;
  sessionId: string;
  name: string;
  fileName: string;
  status: DubStatus;
  progress: number;
  stage: string | null;
  error: string | null;
  sampleRate: number;
  channels: number;
  sampleFormat: SampleFormat;
  frames: number;
  background: boolean;
  defaultVoice: string | null;
  voices: Record<string, string>;
  currentRevision: number;
  source: DubSource;
  /** The recording's transcript revision the lines came from (dubs from the recording). */
  transcriptRevision: number | null;
  lineSeq: number;
  createdAt: string;
  updatedAt: string;
}

/** What a line was before an edit that made it (split, merge): kept, oldest first, in `history`. */
export interface LineHistoryEntry {
  op: 'split' | 'merge';
  at: string;
  /** The line(s) the edit took, as they were. */
  from: Array<{ id: number; speaker: string; start: number; end: number; text: string; original_start: number; original_end: number; original_text: string }>;
}

export interface LineRecord {
  id: number;
  speaker: string;
  start: number;
  end: number;
  originalStart: number;
  originalEnd: number;
  text: string;
  originalText: string;
  voice: string | null;
  words: WordTiming[];
  reviewStatus: ReviewStatus;
  history: LineHistoryEntry[];
  /** Speaking rate asked for when revoiced (1: as the engine reads), or null. */
  speed: number | null;
  updatedAt: string;
}

export interface NoteRecord {
  id: string;
  lineId: number;
  author: string;
  text: string;
  createdAt: string;
}

export interface LineEditRecord {
  seq: number;
  op: string;
  author: string;
  before: LineRecord[];
  after: LineRecord[];
  undone: boolean;
  createdAt: string;
}

export interface RevisionRecord {
  number: number;
  base: number | null;
  source: 'upload' | 'revoice';
  revoiceId: string | null;
  fileName: string;
  /** Line id → how this revision voiced it (carried over from its base, plus this revision's own). */
  renders: Record<number, LineRender>;
  linesRevoiced: number[];
  createdAt: string;
}

/** A line as a revoice will voice it, frozen when the revoice is asked for. */
export interface PlannedLine {
  lineId: number;
  speaker: string;
  text: string;
  voice: string;
  start: number;
  end: number;
  originalStart: number;
  originalEnd: number;
  /** Where the next line starts (the dub's end for the last line): the limit for borrowing silence. */
  nextStart: number;
  /** Where the previous line ends (0 for the first). */
  previousEnd: number;
  /** The line's own speaking rate (pitch kept), or null to fit the reading to the slot. Absent in plans made before speeds existed. */
  speed?: number | null;
}

export interface RevoiceRecord {
  id: string;
  dubId: string;
  jobId: string;
  baseRevision: number;
  revision: number | null;
  status: RevoiceStatus;
  plan: PlannedLine[];
  error: string | null;
  createdAt: string;
  finishedAt: string | null;
}

/** One line a revoice has rendered: its patch file is on disk, durable, before this row exists. */
export interface CheckpointRecord {
  lineId: number;
  render: LineRender;
  patchFile: string;
  attempt: number;
}

interface DubRow {
  id: string;
  session_id: string;
  name: string;
  file_name: string;
  status: DubStatus;
  progress: number;
  stage: string | null;
  error: string | null;
  sample_rate: number;
  channels: number;
  sample_format: SampleFormat;
  frames: number;
  background: number;
  default_voice: string | null;
  voices_json: string;
  current_revision: number;
  source: DubSource;
  transcript_revision: number | null;
  line_seq: number;
  created_at: string;
  updated_at: string;
}

interface LineRow {
  id: number;
  speaker: string;
  start: number;
  end: number;
  original_start: number;
  original_end: number;
  text: string;
  original_text: string;
  voice: string | null;
  words_json: string;
  review_status: ReviewStatus;
  history_json: string;
  speed: number | null;
  updated_at: string;
}

interface RevisionRow {
  number: number;
  base: number | null;
  source: 'upload' | 'revoice';
  revoice_id: string | null;
  file_name: string;
  renders_json: string;
  lines_revoiced_json: string;
  created_at: string;
}

interface RevoiceRow {
  id: string;
  dub_id: string;
  job_id: string;
  base_revision: number;
  revision: number | null;
  status: RevoiceStatus;
  plan_json: string;
  error: string | null;
  created_at: string;
  finished_at: string | null;
}

const toDub = (r: DubRow): DubRecord => ({
  id: r.id,
  sessionId: r.session_id,
  name: r.name,
  fileName: r.file_name,
  status: r.status,
  progress: r.progress,
  stage: r.stage,
  error: r.error,
  sampleRate: r.sample_rate,
  channels: r.channels,
  sampleFormat: r.sample_format,
  frames: r.frames,
  background: r.background === 1,
  defaultVoice: r.default_voice,
  voices: JSON.parse(r.voices_json) as Record<string, string>,
  currentRevision: r.current_revision,
  source: r.source,
  transcriptRevision: r.transcript_revision,
  lineSeq: r.line_seq,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const toLine = (r: LineRow): LineRecord => ({
  id: r.id,
  speaker: r.speaker,
  start: r.start,
  end: r.end,
  originalStart: r.original_start,
  originalEnd: r.original_end,
  text: r.text,
  originalText: r.original_text,
  voice: r.voice,
  words: JSON.parse(r.words_json) as WordTiming[],
  reviewStatus: r.review_status,
  history: JSON.parse(r.history_json) as LineHistoryEntry[],
  speed: r.speed,
  updatedAt: r.updated_at,
});

const toRevision = (r: RevisionRow): RevisionRecord => ({
  number: r.number,
  base: r.base,
  source: r.source,
  revoiceId: r.revoice_id,
  fileName: r.file_name,
  renders: JSON.parse(r.renders_json) as Record<number, LineRender>,
  linesRevoiced: JSON.parse(r.lines_revoiced_json) as number[],
  createdAt: r.created_at,
});

const toRevoice = (r: RevoiceRow): RevoiceRecord => ({
  id: r.id,
  dubId: r.dub_id,
  jobId: r.job_id,
  baseRevision: r.base_revision,
  revision: r.revision,
  status: r.status,
  plan: JSON.parse(r.plan_json) as PlannedLine[],
  error: r.error,
  createdAt: r.created_at,
  finishedAt: r.finished_at,
});

const now = () => new Date().toISOString();

export type NewDub = Omit<DubRecord, 'status' | 'progress' | 'stage' | 'error' | 'currentRevision' | 'createdAt' | 'updatedAt' | 'source' | 'transcriptRevision' | 'lineSeq'> & {
  status: DubStatus;
  source?: DubSource;
  transcriptRevision?: number | null;
};
export type NewLine = Omit<LineRecord, 'updatedAt' | 'originalStart' | 'originalEnd' | 'originalText' | 'reviewStatus' | 'history' | 'speed'>;

/** Rows of dubs and everything under them. Callers group writes in transactions (`db.transaction`). */
export class DubStore {
  constructor(readonly db: Db) {}

  insertDub(dub: NewDub, revisionFile: string): void {
    const at = now();
    this.db
      .prepare(
        `INSERT INTO dubs (id, session_id, name, file_name, status, sample_rate, channels, sample_format, frames, background, default_voice, voices_json, source, transcript_revision, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        dub.id,
        dub.sessionId,
        dub.name,
        dub.fileName,
        dub.status,
        dub.sampleRate,
        dub.channels,
        dub.sampleFormat,
        dub.frames,
        dub.background ? 1 : 0,
        dub.defaultVoice,
        JSON.stringify(dub.voices),
        dub.source ?? 'upload',
        dub.transcriptRevision ?? null,
        at,
        at,
      );
    this.db
      .prepare("INSERT INTO dub_revisions (dub_id, number, base, source, file_name, created_at) VALUES (?, 1, NULL, 'upload', ?, ?)")
      .run(dub.id, revisionFile, at);
  }

  /** Replaces every line (a dub's lines are set once: at upload, or when its transcript is ready). */
  setLines(dubId: string, lines: NewLine[]): void {
    this.db.prepare('DELETE FROM dub_lines WHERE dub_id = ?').run(dubId);
    const insert = this.db.prepare(
      `INSERT INTO dub_lines (dub_id, id, speaker, start, "end", original_start, original_end, text, original_text, voice, words_json, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const at = now();
    for (const l of lines) insert.run(dubId, l.id, l.speaker, l.start, l.end, l.start, l.end, l.text, l.text, l.voice, JSON.stringify(l.words), at);
    this.db.prepare('UPDATE dubs SET line_seq = MAX(line_seq, ?) WHERE id = ?').run(lines.reduce((m, l) => Math.max(m, l.id), 0), dubId);
  }

  /** The revision-1 file's format, once a dub from the recording has been converted. */
  setFormat(dubId: string, format: { sampleRate: number; channels: number; sampleFormat: SampleFormat; frames: number }): void {
    this.db
      .prepare('UPDATE dubs SET sample_rate = ?, channels = ?, sample_format = ?, frames = ?, updated_at = ? WHERE id = ?')
      .run(format.sampleRate, format.channels, format.sampleFormat, format.frames, now(), dubId);
  }

  /** The next unused line id (never one given before, even to a line since removed). */
  takeLineId(dubId: string): number {
    const dub = this.dubById(dubId)!;
    const max = (this.db.prepare('SELECT MAX(id) AS n FROM dub_lines WHERE dub_id = ?').get(dubId) as { n: number | null }).n ?? 0;
    const id = Math.max(dub.lineSeq, max) + 1;
    this.db.prepare('UPDATE dubs SET line_seq = ? WHERE id = ?').run(id, dubId);
    return id;
  }

  /** Writes whole lines as given (split, merge, undo, redo): inserted, or replaced when the id exists. */
  putLines(dubId: string, lines: LineRecord[]): void {
    const put = this.db.prepare(
      `INSERT OR REPLACE INTO dub_lines (dub_id, id, speaker, start, "end", original_start, original_end, text, original_text, voice, words_json, review_status, history_json, speed, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    for (const l of lines) {
      put.run(dubId, l.id, l.speaker, l.start, l.end, l.originalStart, l.originalEnd, l.text, l.originalText, l.voice, JSON.stringify(l.words), l.reviewStatus, JSON.stringify(l.history), l.speed, l.updatedAt);
    }
  }

  deleteLines(dubId: string, ids: number[]): void {
    const remove = this.db.prepare('DELETE FROM dub_lines WHERE dub_id = ? AND id = ?');
    for (const id of ids) remove.run(dubId, id);
  }

  setReviewStatus(dubId: string, lineId: number, status: ReviewStatus): void {
    this.db.prepare('UPDATE dub_lines SET review_status = ?, updated_at = ? WHERE dub_id = ? AND id = ?').run(status, now(), dubId, lineId);
  }

  // ---- notes ----

  notes(dubId: string, lineId?: number): NoteRecord[] {
    const rows = (
      lineId === undefined
        ? this.db.prepare('SELECT * FROM dub_line_notes WHERE dub_id = ? ORDER BY created_at, rowid').all(dubId)
        : this.db.prepare('SELECT * FROM dub_line_notes WHERE dub_id = ? AND line_id = ? ORDER BY created_at, rowid').all(dubId, lineId)
    ) as Array<{ id: string; line_id: number; author: string; text: string; created_at: string }>;
    return rows.map((r) => ({ id: r.id, lineId: r.line_id, author: r.author, text: r.text, createdAt: r.created_at }));
  }

  insertNote(dubId: string, note: NoteRecord): void {
    this.db
      .prepare('INSERT INTO dub_line_notes (id, dub_id, line_id, author, text, created_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(note.id, dubId, note.lineId, note.author, note.text, note.createdAt);
  }

  // ---- line edits (undo / redo) ----

  edits(dubId: string): LineEditRecord[] {
    return (
      this.db.prepare('SELECT * FROM dub_line_edits WHERE dub_id = ? ORDER BY seq').all(dubId) as Array<{
        seq: number;
        op: string;
        author: string;
        before_json: string;
        after_json: string;
        undone: number;
        created_at: string;
      }>
    ).map((r) => ({
      seq: r.seq,
      op: r.op,
      author: r.author,
      before: JSON.parse(r.before_json) as LineRecord[],
      after: JSON.parse(r.after_json) as LineRecord[],
      undone: r.undone === 1,
      createdAt: r.created_at,
    }));
  }

  /** Records an edit; the undone edits after the last one in force are dropped (a new edit ends redo). */
  insertEdit(dubId: string, edit: { op: string; author: string; before: LineRecord[]; after: LineRecord[] }): number {
    this.db.prepare('DELETE FROM dub_line_edits WHERE dub_id = ? AND undone = 1').run(dubId);
    const seq = ((this.db.prepare('SELECT MAX(seq) AS n FROM dub_line_edits WHERE dub_id = ?').get(dubId) as { n: number | null }).n ?? 0) + 1;
    this.db
      .prepare('INSERT INTO dub_line_edits (dub_id, seq, op, author, before_json, after_json, undone, created_at) VALUES (?, ?, ?, ?, ?, ?, 0, ?)')
      .run(dubId, seq, edit.op, edit.author, JSON.stringify(edit.before), JSON.stringify(edit.after), now());
    return seq;
  }

  setEditUndone(dubId: string, seq: number, undone: boolean): void {
    this.db.prepare('UPDATE dub_line_edits SET undone = ? WHERE dub_id = ? AND seq = ?').run(undone ? 1 : 0, dubId, seq);
  }

  dub(sessionId: string, dubId: string): DubRecord | null {
    const row = this.db.prepare('SELECT * FROM dubs WHERE id = ? AND session_id = ?').get(dubId, sessionId) as DubRow | undefined;
    return row ? toDub(row) : null;
  }

  dubById(dubId: string): DubRecord | null {
    const row = this.db.prepare('SELECT * FROM dubs WHERE id = ?').get(dubId) as DubRow | undefined;
    return row ? toDub(row) : null;
  }

  dubs(sessionId: string): DubRecord[] {
    return (this.db.prepare('SELECT * FROM dubs WHERE session_id = ? ORDER BY created_at, rowid').all(sessionId) as DubRow[]).map(toDub);
  }

  /** Every dub folder that should exist: (session id, dub id). */
  allDubIds(): Array<{ sessionId: string; dubId: string }> {
    return (this.db.prepare('SELECT session_id, id FROM dubs').all() as Array<{ session_id: string; id: string }>).map((r) => ({ sessionId: r.session_id, dubId: r.id }));
  }

  setProgress(dubId: string, status: DubStatus, progress: number, stage: string | null, error: string | null = null): void {
    this.db.prepare('UPDATE dubs SET status = ?, progress = ?, stage = ?, error = ?, updated_at = ? WHERE id = ?').run(status, progress, stage, error, now(), dubId);
  }

  updateDub(dubId: string, fields: { name?: string; defaultVoice?: string | null; voices?: Record<string, string>; currentRevision?: number }): void {
    const current = this.dubById(dubId)!;
    this.db
      .prepare('UPDATE dubs SET name = ?, default_voice = ?, voices_json = ?, current_revision = ?, updated_at = ? WHERE id = ?')
      .run(
        fields.name ?? current.name,
        fields.defaultVoice !== undefined ? fields.defaultVoice : current.defaultVoice,
        JSON.stringify(fields.voices ?? current.voices),
        fields.currentRevision ?? current.currentRevision,
        now(),
        dubId,
      );
  }

  deleteDub(dubId: string): void {
    this.db.prepare('DELETE FROM dubs WHERE id = ?').run(dubId);
  }

  /** A dub's lines in time order (ids are stable: a line split off gets a new id, so ids need not follow time). */
  lines(dubId: string): LineRecord[] {
    return (this.db.prepare('SELECT * FROM dub_lines WHERE dub_id = ? ORDER BY start, id').all(dubId) as LineRow[]).map(toLine);
  }

  updateLine(dubId: string, line: Pick<LineRecord, 'id' | 'text' | 'voice' | 'start' | 'end'> & Partial<Pick<LineRecord, 'reviewStatus' | 'speed'>>): void {
    this.db
      .prepare('UPDATE dub_lines SET text = ?, voice = ?, start = ?, "end" = ?, review_status = COALESCE(?, review_status), speed = CASE WHEN ? = 1 THEN ? ELSE speed END, updated_at = ? WHERE dub_id = ? AND id = ?')
      .run(line.text, line.voice, line.start, line.end, line.reviewStatus ?? null, line.speed !== undefined ? 1 : 0, line.speed ?? null, now(), dubId, line.id);
  }

  revisions(dubId: string): RevisionRecord[] {
    return (this.db.prepare('SELECT * FROM dub_revisions WHERE dub_id = ? ORDER BY number').all(dubId) as RevisionRow[]).map(toRevision);
  }

  revision(dubId: string, number: number): RevisionRecord | null {
    const row = this.db.prepare('SELECT * FROM dub_revisions WHERE dub_id = ? AND number = ?').get(dubId, number) as RevisionRow | undefined;
    return row ? toRevision(row) : null;
  }

  nextRevisionNumber(dubId: string): number {
    return ((this.db.prepare('SELECT MAX(number) AS n FROM dub_revisions WHERE dub_id = ?').get(dubId) as { n: number | null }).n ?? 0) + 1;
  }

  insertRevision(dubId: string, revision: Omit<RevisionRecord, 'createdAt'>): void {
    this.db
      .prepare(
        'INSERT INTO dub_revisions (dub_id, number, base, source, revoice_id, file_name, renders_json, lines_revoiced_json, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
      )
      .run(dubId, revision.number, revision.base, revision.source, revision.revoiceId, revision.fileName, JSON.stringify(revision.renders), JSON.stringify(revision.linesRevoiced), now());
  }

  insertRevoice(revoice: Pick<RevoiceRecord, 'id' | 'dubId' | 'jobId' | 'baseRevision' | 'plan'>): void {
    this.db
      .prepare("INSERT INTO dub_revoices (id, dub_id, job_id, base_revision, status, plan_json, created_at) VALUES (?, ?, ?, ?, 'queued', ?, ?)")
      .run(revoice.id, revoice.dubId, revoice.jobId, revoice.baseRevision, JSON.stringify(revoice.plan), now());
  }

  revoice(id: string): RevoiceRecord | null {
    const row = this.db.prepare('SELECT * FROM dub_revoices WHERE id = ?').get(id) as RevoiceRow | undefined;
    return row ? toRevoice(row) : null;
  }

  revoices(dubId: string): RevoiceRecord[] {
    return (this.db.prepare('SELECT * FROM dub_revoices WHERE dub_id = ? ORDER BY created_at DESC, rowid DESC').all(dubId) as RevoiceRow[]).map(toRevoice);
  }

  activeRevoice(dubId: string): RevoiceRecord | null {
    const row = this.db
      .prepare("SELECT * FROM dub_revoices WHERE dub_id = ? AND status IN ('queued','running') ORDER BY created_at DESC LIMIT 1")
      .get(dubId) as RevoiceRow | undefined;
    return row ? toRevoice(row) : null;
  }

  setRevoiceStatus(id: string, status: RevoiceStatus, fields: { error?: string | null; revision?: number } = {}): void {
    const finished = status === 'complete' || status === 'failed' ? now() : null;
    this.db
      .prepare('UPDATE dub_revoices SET status = ?, error = ?, revision = COALESCE(?, revision), finished_at = ? WHERE id = ?')
      .run(status, fields.error ?? null, fields.revision ?? null, finished, id);
  }

  /** After a crash: revoices that were running are queued again (their jobs are re-queued at start). */
  recoverInterrupted(): void {
    this.db.prepare("UPDATE dub_revoices SET status = 'queued' WHERE status = 'running'").run();
  }

  checkpoints(revoiceId: string): CheckpointRecord[] {
    return (
      this.db.prepare('SELECT line_id, render_json, patch_file, attempt FROM dub_revoice_lines WHERE revoice_id = ? ORDER BY line_id').all(revoiceId) as Array<{
        line_id: number;
        render_json: string;
        patch_file: string;
        attempt: number;
      }>
    ).map((r) => ({ lineId: r.line_id, render: JSON.parse(r.render_json) as LineRender, patchFile: r.patch_file, attempt: r.attempt }));
  }

  insertCheckpoint(revoiceId: string, checkpoint: CheckpointRecord): void {
    this.db
      .prepare('INSERT INTO dub_revoice_lines (revoice_id, line_id, render_json, patch_file, attempt, created_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(revoiceId, checkpoint.lineId, JSON.stringify(checkpoint.render), checkpoint.patchFile, checkpoint.attempt, now());
  }
}
