import { SqlJobStore, type JobDispatch, type JobStore } from './job-store';
import { UniqueViolation, type Sql } from './sql/sql';
import type { LineRender, SpeakerPitch, WordTiming } from '../../shared/schemas';
import type { SampleFormat } from '../media/wav';
import { inList } from './sql/placeholders';
import { sqlOf, type TransactionScope } from './transaction-scope';
import { SqlAuditStore, type AuditStore } from './audit-store';
import type { LineGuideName as LineGuide } from '../../shared/schemas';

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
  /** Each speaker's pitch measured from the dub's audio, and the gender of voice it suggests. */
  speakerPitch: Record<string, SpeakerPitch>;
  /** What its lines' revoicing follows unless a line says otherwise (null: fitted to the slot). */
  guide?: LineGuide | null;
  currentRevision: number;
  source: DubSource;
  /** The recording's transcript revision the lines came from (dubs from the recording). */
  transcriptRevision: number | null;
  lineSeq: number;
  /** Raised by every change to the dub's lines (each changed line keeps the value as its `revision`). */
  linesRevision: number;
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
  /** The line's own voice when the dub was made (kept through splits and merges, as the original text is). */
  originalVoice: string | null;
  words: WordTiming[];
  reviewStatus: ReviewStatus;
  history: LineHistoryEntry[];
  /** Speaking rate asked for when revoiced (1: as the engine reads), or null. */
  speed: number | null;
  /** What this line's revoicing follows (overrides the dub's); null or absent: the dub's. */
  guide?: LineGuide | null;
  /** The dub's lines revision at this line's last change (0: as the dub was made). */
  revision: number;
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
  source: 'upload' | 'revoice' | 'take';
  revoiceId: string | null;
  fileName: string;
  /** Line id → how this revision voiced it (carried over from its base, plus this revision's own). */
  renders: Record<number, LineRender>;
  linesRevoiced: number[];
  /** The take this revision put in (a revision made by choosing a take), else null. */
  takeId?: string | null;
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
  /** `original`: the reading follows the original line's word timings and pitch; null or absent: fitted to the slot. */
  guide?: LineGuide | null;
  /** The line's original text (what the original audio says), for a guided line. */
  originalText?: string;
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

// ---- dub takes ----
export type TakeStatus = 'queued' | 'rendering' | 'ready' | 'failed';
/** Synthesized by a takes job, or recorded (an uploaded recording of the line). */
export type TakeSource = 'synthesized' | 'recorded';

/** One rendering of a line to choose from: the line as planned for it, and once rendered how it came out. */
export interface TakeRecord {
  id: string;
  dubId: string;
  lineId: number;
  /** 1 upwards per line, in the order they were asked for. */
  number: number;
  jobId: string;
  voice: string;
  speed: number | null;
  source: TakeSource;
  status: TakeStatus;
  error: string | null;
  plan: PlannedLine;
  render: LineRender | null;
  /** The revision the take's audition audio was mixed into. */
  baseRevision: number;
  createdAt: string;
  finishedAt: string | null;
}

interface TakeRow {
  id: string;
  dub_id: string;
  line_id: number;
  number: number;
  job_id: string;
  voice: string;
  speed: number | null;
  source: TakeSource;
  status: TakeStatus;
  error: string | null;
  plan_json: string;
  render_json: string | null;
  base_revision: number;
  created_at: string;
  finished_at: string | null;
}

const toTake = (r: TakeRow): TakeRecord => ({
  id: r.id,
  dubId: r.dub_id,
  lineId: Number(r.line_id),
  number: Number(r.number),
  jobId: r.job_id,
  voice: r.voice,
  speed: r.speed,
  source: r.source,
  status: r.status,
  error: r.error,
  plan: JSON.parse(r.plan_json) as PlannedLine,
  render: r.render_json === null ? null : (JSON.parse(r.render_json) as LineRender),
  baseRevision: Number(r.base_revision),
  createdAt: r.created_at,
  finishedAt: r.finished_at,
});
const TAKE_COLUMNS = 'id, dub_id, line_id, number, job_id, voice, speed, source, status, error, plan_json, render_json, base_revision, created_at, finished_at';
// ---- end of the dub takes block ----

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
  speaker_pitch_json: string;
  guide: LineGuide | null;
  current_revision: number;
  source: DubSource;
  transcript_revision: number | null;
  line_seq: number;
  lines_revision: number;
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
  original_voice: string | null;
  words_json: string;
  review_status: ReviewStatus;
  history_json: string;
  speed: number | null;
  guide: LineGuide | null;
  revision: number;
  updated_at: string;
}

interface RevisionRow {
  number: number;
  base: number | null;
  source: 'upload' | 'revoice' | 'take';
  revoice_id: string | null;
  file_name: string;
  renders_json: string;
  lines_revoiced_json: string;
  take_id: string | null;
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
  speakerPitch: JSON.parse(r.speaker_pitch_json) as Record<string, SpeakerPitch>,
  guide: r.guide ?? null,
  currentRevision: r.current_revision,
  source: r.source,
  transcriptRevision: r.transcript_revision,
  lineSeq: r.line_seq,
  linesRevision: Number(r.lines_revision),
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
  originalVoice: r.original_voice,
  words: JSON.parse(r.words_json) as WordTiming[],
  reviewStatus: r.review_status,
  history: JSON.parse(r.history_json) as LineHistoryEntry[],
  speed: r.speed,
  guide: r.guide ?? null,
  revision: Number(r.revision),
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
  takeId: r.take_id,
  // Stored as 'revoice' (the column's CHECK predates takes); the take it names makes it a take's revision.
  ...(r.take_id !== null ? { source: 'take' as const } : {}),
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

export type NewDub = Omit<DubRecord, 'speakerPitch' | 'status' | 'progress' | 'stage' | 'error' | 'currentRevision' | 'createdAt' | 'updatedAt' | 'source' | 'transcriptRevision' | 'lineSeq' | 'linesRevision'> & {
  status: DubStatus;
  source?: DubSource;
  transcriptRevision?: number | null;
};
export type NewLine = Omit<LineRecord, 'updatedAt' | 'originalStart' | 'originalEnd' | 'originalText' | 'originalVoice' | 'reviewStatus' | 'history' | 'speed' | 'revision'>;

const REVISION_COLUMNS = 'number, base, source, revoice_id, file_name, renders_json, lines_revoiced_json, take_id, created_at';
const REVOICE_COLUMNS = 'id, dub_id, job_id, base_revision, revision, status, plan_json, error, created_at, finished_at';

const now = () => new Date().toISOString();
/** Rows per INSERT when a dub's lines are set (13 values each: far below either database's limit on parameters). */
const LINES_PER_INSERT = 200;

/** A revision number already recorded for the dub (two revoices finishing at once): the later one must take the next. */
export class RevisionTaken extends Error {
  constructor(dubId: string, number: number) {
    super(`Dub ${dubId} already has a revision ${number}.`);
    this.name = 'RevisionTaken';
  }
}

/** Lines counted by review status. */
export type ReviewCounts = Record<ReviewStatus, number>;

/**
 * The dubbing tables — dubs, dub_lines, dub_line_notes, dub_line_edits, dub_revisions, dub_revoices and
 * dub_revoice_lines — and nothing else writes them. Writes that belong together run in `transaction`, on
 * the store it hands over; a dub's line edits there start with `lockDub`, so two people editing the same
 * dub from two API nodes take turns instead of reading each other's half-done lines.
 */
export interface DubStore {
  /** This store writing in a transaction in progress (a job kind's settle writer's). */
  within(scope: TransactionScope): DubStore;
  /**
   * Runs `work` in one transaction: committed when it resolves, rolled back when it throws. `jobs` queues work
   * in the same transaction (a dub and its preparation, a revoice and its job commit together), `audit` records
   * who did it with the change.
   */
  transaction<T>(work: (store: DubStore, jobs: JobStore, audit: AuditStore) => Promise<T>): Promise<T>;
  /**
   * Inside a transaction: holds the dub's row until the commit, so other writers of the dub wait (on
   * PostgreSQL; SQLite's transactions run one at a time already). False when the dub is gone.
   */
  lockDub(dubId: string): Promise<boolean>;

  // ---- dubs ----
  /** The dub and its revision 1 (the uploaded or converted audio). */
  insertDub(dub: NewDub, revisionFile: string): Promise<void>;
  dub(sessionId: string, dubId: string): Promise<DubRecord | null>;
  dubById(dubId: string): Promise<DubRecord | null>;
  /** A recording's dubs, oldest first. */
  dubs(sessionId: string): Promise<DubRecord[]>;
  /** Every dub folder that should exist: (session id, dub id). */
  allDubIds(): Promise<Array<{ sessionId: string; dubId: string }>>;
  /** The revision-1 file's format, once a dub from the recording has been converted. */
  setFormat(dubId: string, format: { sampleRate: number; channels: number; sampleFormat: SampleFormat; frames: number }): Promise<void>;
  setProgress(dubId: string, status: DubStatus, progress: number, stage: string | null, error?: string | null): Promise<void>;
  /** Records each speaker's measured pitch (replacing what was recorded). */
  setSpeakerPitch(dubId: string, pitch: Record<string, SpeakerPitch>): Promise<void>;
  /** Changes only the fields given (`defaultVoice: null` clears it). */
  updateDub(dubId: string, fields: { name?: string; defaultVoice?: string | null; voices?: Record<string, string>; currentRevision?: number }): Promise<void>;
  /** What the dub's lines follow when revoiced, unless a line says otherwise. */
  setDubGuide(dubId: string, guide: LineGuide | null): Promise<void>;
  /** A line's own guide (null: the dub's); a change of the lines like any other (its revision rises). */
  setLineGuide(dubId: string, lineId: number, guide: LineGuide | null): Promise<void>;
  /** The dub and everything under it (lines, notes, edits, revisions, revoices and their lines). */
  deleteDub(dubId: string): Promise<void>;

  // ---- lines ----
  /** A dub's lines in time order (ids are stable: a line split off gets a new id, so ids need not follow time). */
  lines(dubId: string): Promise<LineRecord[]>;
  /** Replaces every line (a dub's lines are set once: at upload, or when its transcript is ready). */
  setLines(dubId: string, lines: NewLine[]): Promise<void>;
  /** The next unused line id (never one given before, even to a line since removed). */
  takeLineId(dubId: string): Promise<number>;
  /**
   * Every write of lines below (put, delete, update, review status) raises the dub's lines revision by one and
   * gives the lines it writes that value as their `revision` (whatever revision a line written whole carried).
   */
  /** Writes whole lines as given (split, merge, undo, redo): inserted, or replaced when the id exists. */
  putLines(dubId: string, lines: LineRecord[]): Promise<void>;
  deleteLines(dubId: string, ids: number[]): Promise<void>;
  /** A correction: text, voice and timing; review status and speed when given (`speed: null` clears it). */
  updateLine(dubId: string, line: Pick<LineRecord, 'id' | 'text' | 'voice' | 'start' | 'end'> & Partial<Pick<LineRecord, 'reviewStatus' | 'speed'>>): Promise<void>;
  setReviewStatus(dubId: string, lineId: number, status: ReviewStatus): Promise<void>;
  reviewCounts(dubId: string): Promise<ReviewCounts>;

  // ---- notes ----
  /** A dub's notes (or one line's), oldest first. */
  notes(dubId: string, lineId?: number): Promise<NoteRecord[]>;
  insertNote(dubId: string, note: NoteRecord): Promise<void>;

  // ---- line edits (undo / redo) ----
  edits(dubId: string): Promise<LineEditRecord[]>;
  /** Records an edit; the undone edits after the last one in force are dropped (a new edit ends redo). */
  insertEdit(dubId: string, edit: { op: string; author: string; before: LineRecord[]; after: LineRecord[] }): Promise<number>;
  setEditUndone(dubId: string, seq: number, undone: boolean): Promise<void>;

  // ---- revisions ----
  revisions(dubId: string): Promise<RevisionRecord[]>;
  revision(dubId: string, number: number): Promise<RevisionRecord | null>;
  nextRevisionNumber(dubId: string): Promise<number>;
  /** Throws RevisionTaken when the number is in use. */
  insertRevision(dubId: string, revision: Omit<RevisionRecord, 'createdAt'>): Promise<void>;

  // ---- revoices ----
  insertRevoice(revoice: Pick<RevoiceRecord, 'id' | 'dubId' | 'jobId' | 'baseRevision' | 'plan'>): Promise<void>;
  revoice(id: string): Promise<RevoiceRecord | null>;
  /** A dub's revoices, newest first. */
  revoices(dubId: string): Promise<RevoiceRecord[]>;
  /** The dub's queued or running revoice, if any. */
  activeRevoice(dubId: string): Promise<RevoiceRecord | null>;
  /** The jobs of the dub's revoices and takes not yet finished (to cancel when the dub goes). */
  unfinishedJobIds(dubId: string): Promise<string[]>;
  setRevoiceStatus(id: string, status: RevoiceStatus, fields?: { error?: string | null; revision?: number }): Promise<void>;
  /** After a crash: revoices that were running are queued again (their jobs are re-queued at start). */
  recoverInterrupted(): Promise<void>;
  /** The lines a revoice has rendered, by line id. */
  checkpoints(revoiceId: string): Promise<CheckpointRecord[]>;
  insertCheckpoint(revoiceId: string, checkpoint: CheckpointRecord): Promise<void>;
  /** Lines a revoice has rendered and kept: its checkpoints, counted. */
  checkpointCount(revoiceId: string): Promise<number>;

  // ---- takes ----
  /** Records takes of a line, numbered after the line's existing ones (in the order given), all `queued`. */
  insertTakes(dubId: string, lineId: number, takes: Array<Pick<TakeRecord, 'id' | 'jobId' | 'voice' | 'speed' | 'plan' | 'baseRevision'> & { source?: TakeSource }>): Promise<TakeRecord[]>;
  take(dubId: string, takeId: string): Promise<TakeRecord | null>;
  /** A line's takes by number. */
  takes(dubId: string, lineId: number): Promise<TakeRecord[]>;
  /** The takes a job renders, by number. */
  takesOfJob(jobId: string): Promise<TakeRecord[]>;
  /** Every take of the dub, by line and number. */
  dubTakes(dubId: string): Promise<TakeRecord[]>;
  /**
   * Deletes these takes of the dub, except any a revision names (a take put in stays as long as the dub); returns
   * the ids deleted. Their files are the caller's to remove once this has committed.
   */
  deleteTakes(dubId: string, ids: readonly string[]): Promise<string[]>;
  /** False when the take no longer exists (removed while it was rendering). */
  setTakeStatus(takeId: string, status: TakeStatus, fields?: { error?: string | null; render?: LineRender }): Promise<boolean>;
}

type EditRow = { seq: number; op: string; author: string; before_json: string; after_json: string; undone: number; created_at: string };
type NoteRow = { id: string; line_id: number; author: string; text: string; created_at: string };
type CheckpointRow = { line_id: number; render_json: string; patch_file: string; attempt: number };

const LINE_COLUMNS = 'id, speaker, start, "end", original_start, original_end, text, original_text, voice, original_voice, words_json, review_status, history_json, speed, guide, revision, updated_at';
const DUB_COLUMNS =
  'id, session_id, name, file_name, status, progress, stage, error, sample_rate, channels, sample_format, frames, background, default_voice, voices_json, speaker_pitch_json, guide, current_revision, source, transcript_revision, line_seq, lines_revision, created_at, updated_at';

/** The dubbing tables in portable SQL: one implementation for the embedded SQLite file and for PostgreSQL. */
export class SqlDubStore implements DubStore {
  /** Rows inserted in the same millisecond keep their insertion order: SQLite's rowid; PostgreSQL has none, so the id breaks the tie. */
  private readonly insertion: string;

  constructor(
    private readonly sql: Sql,
    /** Team mode: jobs queued in this store's transactions also go to the queue engine. */
    private readonly dispatch?: JobDispatch,
  ) {
    this.insertion = sql.dialect === 'sqlite' ? 'rowid' : 'id';
  }

  within(scope: TransactionScope): DubStore {
    return new SqlDubStore(sqlOf(scope), this.dispatch);
  }

  transaction<T>(work: (store: DubStore, jobs: JobStore, audit: AuditStore) => Promise<T>): Promise<T> {
    return this.sql.transaction((tx) => work(new SqlDubStore(tx, this.dispatch), new SqlJobStore(tx, this.dispatch), new SqlAuditStore(tx)));
  }

  async lockDub(dubId: string): Promise<boolean> {
    const lock = this.sql.dialect === 'postgres' ? ' FOR UPDATE' : '';
    return (await this.sql.get(`SELECT id FROM dubs WHERE id = ?${lock}`, [dubId])) !== undefined;
  }

  // ---- dubs ----

  async insertDub(dub: NewDub, revisionFile: string): Promise<void> {
    const at = now();
    await this.sql.run(
      `INSERT INTO dubs (id, session_id, name, file_name, status, sample_rate, channels, sample_format, frames, background, default_voice, voices_json, source, transcript_revision, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
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
      ],
    );
    await this.sql.run("INSERT INTO dub_revisions (dub_id, number, base, source, file_name, created_at) VALUES (?, 1, NULL, 'upload', ?, ?)", [dub.id, revisionFile, at]);
  }

  async dub(sessionId: string, dubId: string): Promise<DubRecord | null> {
    const row = await this.sql.get<DubRow>(`SELECT ${DUB_COLUMNS} FROM dubs WHERE id = ? AND session_id = ?`, [dubId, sessionId]);
    return row ? toDub(row) : null;
  }

  async dubById(dubId: string): Promise<DubRecord | null> {
    const row = await this.sql.get<DubRow>(`SELECT ${DUB_COLUMNS} FROM dubs WHERE id = ?`, [dubId]);
    return row ? toDub(row) : null;
  }

  async dubs(sessionId: string): Promise<DubRecord[]> {
    return (await this.sql.all<DubRow>(`SELECT ${DUB_COLUMNS} FROM dubs WHERE session_id = ? ORDER BY created_at, ${this.insertion}`, [sessionId])).map(toDub);
  }

  async allDubIds(): Promise<Array<{ sessionId: string; dubId: string }>> {
    return (await this.sql.all<{ session_id: string; id: string }>('SELECT session_id, id FROM dubs')).map((r) => ({ sessionId: r.session_id, dubId: r.id }));
  }

  async setFormat(dubId: string, format: { sampleRate: number; channels: number; sampleFormat: SampleFormat; frames: number }): Promise<void> {
    await this.sql.run('UPDATE dubs SET sample_rate = ?, channels = ?, sample_format = ?, frames = ?, updated_at = ? WHERE id = ?', [
      format.sampleRate,
      format.channels,
      format.sampleFormat,
      format.frames,
      now(),
      dubId,
    ]);
  }

  async setProgress(dubId: string, status: DubStatus, progress: number, stage: string | null, error: string | null = null): Promise<void> {
    await this.sql.run('UPDATE dubs SET status = ?, progress = ?, stage = ?, error = ?, updated_at = ? WHERE id = ?', [status, progress, stage, error, now(), dubId]);
  }

  async setSpeakerPitch(dubId: string, pitch: Record<string, SpeakerPitch>): Promise<void> {
    await this.sql.run('UPDATE dubs SET speaker_pitch_json = ? WHERE id = ?', [JSON.stringify(pitch), dubId]);
  }

  async updateDub(dubId: string, fields: { name?: string; defaultVoice?: string | null; voices?: Record<string, string>; currentRevision?: number }): Promise<void> {
    // One statement, so a concurrent change of another field is not overwritten with what was read before it.
    await this.sql.run(
      `UPDATE dubs SET name = COALESCE(?, name), default_voice = CASE WHEN ? = 1 THEN ? ELSE default_voice END, voices_json = COALESCE(?, voices_json),
         current_revision = COALESCE(?, current_revision), updated_at = ? WHERE id = ?`,
      [
        fields.name ?? null,
        fields.defaultVoice !== undefined ? 1 : 0,
        fields.defaultVoice ?? null,
        fields.voices ? JSON.stringify(fields.voices) : null,
        fields.currentRevision ?? null,
        now(),
        dubId,
      ],
    );
  }

  async deleteDub(dubId: string): Promise<void> {
    await this.sql.run('DELETE FROM dubs WHERE id = ?', [dubId]);
  }

  // ---- lines ----

  async lines(dubId: string): Promise<LineRecord[]> {
    return (await this.sql.all<LineRow>(`SELECT ${LINE_COLUMNS} FROM dub_lines WHERE dub_id = ? ORDER BY start, id`, [dubId])).map(toLine);
  }

  async setLines(dubId: string, lines: NewLine[]): Promise<void> {
    await this.sql.run('DELETE FROM dub_lines WHERE dub_id = ?', [dubId]);
    const at = now();
    // Many rows per statement: a recording's hundreds of lines would otherwise cost a round trip each on PostgreSQL.
    for (let from = 0; from < lines.length; from += LINES_PER_INSERT) {
      const chunk = lines.slice(from, from + LINES_PER_INSERT);
      await this.sql.run(
        `INSERT INTO dub_lines (dub_id, id, speaker, start, "end", original_start, original_end, text, original_text, voice, original_voice, words_json, updated_at)
         VALUES ${chunk.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
        chunk.flatMap((l) => [dubId, l.id, l.speaker, l.start, l.end, l.start, l.end, l.text, l.text, l.voice, l.voice, JSON.stringify(l.words), at]),
      );
    }
    const highest = lines.reduce((m, l) => Math.max(m, l.id), 0);
    await this.sql.run('UPDATE dubs SET line_seq = CASE WHEN line_seq < ? THEN ? ELSE line_seq END WHERE id = ?', [highest, highest, dubId]);
  }

  async takeLineId(dubId: string): Promise<number> {
    // Read and bumped in one statement (the row is locked while it runs), so two callers never get the same id.
    const row = await this.sql.get<{ line_seq: number }>(
      `UPDATE dubs SET line_seq = 1 + CASE WHEN line_seq >= (SELECT COALESCE(MAX(id), 0) FROM dub_lines WHERE dub_id = ?) THEN line_seq
         ELSE (SELECT COALESCE(MAX(id), 0) FROM dub_lines WHERE dub_id = ?) END WHERE id = ? RETURNING line_seq`,
      [dubId, dubId, dubId],
    );
    if (!row) throw new Error(`Dub ${dubId} does not exist.`);
    return row.line_seq;
  }

  /** Raises the dub's lines revision and returns it: the `revision` of the lines a write changes. */
  private async nextLinesRevision(dubId: string): Promise<number> {
    const row = await this.sql.get<{ lines_revision: number }>('UPDATE dubs SET lines_revision = lines_revision + 1 WHERE id = ? RETURNING lines_revision', [dubId]);
    if (!row) throw new Error(`Dub ${dubId} does not exist.`);
    return Number(row.lines_revision);
  }

  async putLines(dubId: string, lines: LineRecord[]): Promise<void> {
    if (lines.length === 0) return;
    const revision = await this.nextLinesRevision(dubId);
    for (const l of lines) {
      await this.sql.run(
        `INSERT INTO dub_lines (dub_id, id, speaker, start, "end", original_start, original_end, text, original_text, voice, original_voice, words_json, review_status, history_json, speed, guide, revision, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (dub_id, id) DO UPDATE SET speaker = excluded.speaker, start = excluded.start, "end" = excluded."end",
           original_start = excluded.original_start, original_end = excluded.original_end, text = excluded.text, original_text = excluded.original_text,
           voice = excluded.voice, original_voice = excluded.original_voice, words_json = excluded.words_json, review_status = excluded.review_status, history_json = excluded.history_json,
           speed = excluded.speed, guide = excluded.guide, revision = excluded.revision, updated_at = excluded.updated_at`,
        [dubId, l.id, l.speaker, l.start, l.end, l.originalStart, l.originalEnd, l.text, l.originalText, l.voice, l.originalVoice ?? null, JSON.stringify(l.words), l.reviewStatus, JSON.stringify(l.history), l.speed, l.guide ?? null, revision, l.updatedAt],
      );
    }
  }

  async deleteLines(dubId: string, ids: number[]): Promise<void> {
    if (ids.length) await this.nextLinesRevision(dubId);
    for (const id of ids) await this.sql.run('DELETE FROM dub_lines WHERE dub_id = ? AND id = ?', [dubId, id]);
  }

  async updateLine(dubId: string, line: Pick<LineRecord, 'id' | 'text' | 'voice' | 'start' | 'end'> & Partial<Pick<LineRecord, 'reviewStatus' | 'speed'>>): Promise<void> {
    const revision = await this.nextLinesRevision(dubId);
    await this.sql.run(
      `UPDATE dub_lines SET text = ?, voice = ?, start = ?, "end" = ?, review_status = COALESCE(?, review_status), speed = CASE WHEN ? = 1 THEN ? ELSE speed END, revision = ?, updated_at = ?
       WHERE dub_id = ? AND id = ?`,
      [line.text, line.voice, line.start, line.end, line.reviewStatus ?? null, line.speed !== undefined ? 1 : 0, line.speed ?? null, revision, now(), dubId, line.id],
    );
  }

  async setDubGuide(dubId: string, guide: LineGuide | null): Promise<void> {
    await this.sql.run('UPDATE dubs SET guide = ?, updated_at = ? WHERE id = ?', [guide, now(), dubId]);
  }

  async setLineGuide(dubId: string, lineId: number, guide: LineGuide | null): Promise<void> {
    const revision = await this.nextLinesRevision(dubId);
    await this.sql.run('UPDATE dub_lines SET guide = ?, revision = ?, updated_at = ? WHERE dub_id = ? AND id = ?', [guide, revision, now(), dubId, lineId]);
  }

  async setReviewStatus(dubId: string, lineId: number, status: ReviewStatus): Promise<void> {
    const revision = await this.nextLinesRevision(dubId);
    await this.sql.run('UPDATE dub_lines SET review_status = ?, revision = ?, updated_at = ? WHERE dub_id = ? AND id = ?', [status, revision, now(), dubId, lineId]);
  }

  async reviewCounts(dubId: string): Promise<ReviewCounts> {
    const counts: ReviewCounts = { todo: 0, needs_changes: 0, approved: 0 };
    const rows = await this.sql.all<{ review_status: ReviewStatus; n: number }>('SELECT review_status, COUNT(*) AS n FROM dub_lines WHERE dub_id = ? GROUP BY review_status', [dubId]);
    for (const row of rows) counts[row.review_status] = Number(row.n);
    return counts;
  }

  // ---- notes ----

  async notes(dubId: string, lineId?: number): Promise<NoteRecord[]> {
    const columns = 'id, line_id, author, text, created_at';
    const rows =
      lineId === undefined
        ? await this.sql.all<NoteRow>(`SELECT ${columns} FROM dub_line_notes WHERE dub_id = ? ORDER BY created_at, ${this.insertion}`, [dubId])
        : await this.sql.all<NoteRow>(`SELECT ${columns} FROM dub_line_notes WHERE dub_id = ? AND line_id = ? ORDER BY created_at, ${this.insertion}`, [dubId, lineId]);
    return rows.map((r) => ({ id: r.id, lineId: r.line_id, author: r.author, text: r.text, createdAt: r.created_at }));
  }

  async insertNote(dubId: string, note: NoteRecord): Promise<void> {
    await this.sql.run('INSERT INTO dub_line_notes (id, dub_id, line_id, author, text, created_at) VALUES (?, ?, ?, ?, ?, ?)', [note.id, dubId, note.lineId, note.author, note.text, note.createdAt]);
  }

  // ---- line edits (undo / redo) ----

  async edits(dubId: string): Promise<LineEditRecord[]> {
    const rows = await this.sql.all<EditRow>('SELECT seq, op, author, before_json, after_json, undone, created_at FROM dub_line_edits WHERE dub_id = ? ORDER BY seq', [dubId]);
    return rows.map((r) => ({
      seq: r.seq,
      op: r.op,
      author: r.author,
      before: JSON.parse(r.before_json) as LineRecord[],
      after: JSON.parse(r.after_json) as LineRecord[],
      undone: r.undone === 1,
      createdAt: r.created_at,
    }));
  }

  async insertEdit(dubId: string, edit: { op: string; author: string; before: LineRecord[]; after: LineRecord[] }): Promise<number> {
    await this.sql.run('DELETE FROM dub_line_edits WHERE dub_id = ? AND undone = 1', [dubId]);
    const top = await this.sql.get<{ n: number | null }>('SELECT MAX(seq) AS n FROM dub_line_edits WHERE dub_id = ?', [dubId]);
    const seq = (top?.n ?? 0) + 1;
    await this.sql.run('INSERT INTO dub_line_edits (dub_id, seq, op, author, before_json, after_json, undone, created_at) VALUES (?, ?, ?, ?, ?, ?, 0, ?)', [
      dubId,
      seq,
      edit.op,
      edit.author,
      JSON.stringify(edit.before),
      JSON.stringify(edit.after),
      now(),
    ]);
    return seq;
  }

  async setEditUndone(dubId: string, seq: number, undone: boolean): Promise<void> {
    await this.sql.run('UPDATE dub_line_edits SET undone = ? WHERE dub_id = ? AND seq = ?', [undone ? 1 : 0, dubId, seq]);
  }

  // ---- revisions ----

  async revisions(dubId: string): Promise<RevisionRecord[]> {
    return (await this.sql.all<RevisionRow>(`SELECT ${REVISION_COLUMNS} FROM dub_revisions WHERE dub_id = ? ORDER BY number`, [dubId])).map(toRevision);
  }

  async revision(dubId: string, number: number): Promise<RevisionRecord | null> {
    const row = await this.sql.get<RevisionRow>(`SELECT ${REVISION_COLUMNS} FROM dub_revisions WHERE dub_id = ? AND number = ?`, [dubId, number]);
    return row ? toRevision(row) : null;
  }

  async nextRevisionNumber(dubId: string): Promise<number> {
    return ((await this.sql.get<{ n: number | null }>('SELECT MAX(number) AS n FROM dub_revisions WHERE dub_id = ?', [dubId]))?.n ?? 0) + 1;
  }

  async insertRevision(dubId: string, revision: Omit<RevisionRecord, 'createdAt'>): Promise<void> {
    try {
      await this.sql.run(
        'INSERT INTO dub_revisions (dub_id, number, base, source, revoice_id, file_name, renders_json, lines_revoiced_json, take_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
        [dubId, revision.number, revision.base, revision.source === 'take' ? 'revoice' : revision.source, revision.revoiceId, revision.fileName, JSON.stringify(revision.renders), JSON.stringify(revision.linesRevoiced), revision.takeId ?? null, now()],
      );
    } catch (error) {
      if (error instanceof UniqueViolation) throw new RevisionTaken(dubId, revision.number);
      throw error;
    }
  }

  // ---- revoices ----

  async insertRevoice(revoice: Pick<RevoiceRecord, 'id' | 'dubId' | 'jobId' | 'baseRevision' | 'plan'>): Promise<void> {
    await this.sql.run("INSERT INTO dub_revoices (id, dub_id, job_id, base_revision, status, plan_json, created_at) VALUES (?, ?, ?, ?, 'queued', ?, ?)", [
      revoice.id,
      revoice.dubId,
      revoice.jobId,
      revoice.baseRevision,
      JSON.stringify(revoice.plan),
      now(),
    ]);
  }

  async revoice(id: string): Promise<RevoiceRecord | null> {
    const row = await this.sql.get<RevoiceRow>(`SELECT ${REVOICE_COLUMNS} FROM dub_revoices WHERE id = ?`, [id]);
    return row ? toRevoice(row) : null;
  }

  async revoices(dubId: string): Promise<RevoiceRecord[]> {
    return (await this.sql.all<RevoiceRow>(`SELECT ${REVOICE_COLUMNS} FROM dub_revoices WHERE dub_id = ? ORDER BY created_at DESC, ${this.insertion} DESC`, [dubId])).map(toRevoice);
  }

  async unfinishedJobIds(dubId: string): Promise<string[]> {
    const rows = await this.sql.all<{ job_id: string }>(
      "SELECT job_id FROM dub_revoices WHERE dub_id = ? AND status IN ('queued','running') UNION SELECT job_id FROM dub_line_takes WHERE dub_id = ? AND status IN ('queued','rendering')",
      [dubId, dubId],
    );
    return rows.map((r) => r.job_id);
  }

  async activeRevoice(dubId: string): Promise<RevoiceRecord | null> {
    const row = await this.sql.get<RevoiceRow>(
      `SELECT ${REVOICE_COLUMNS} FROM dub_revoices WHERE dub_id = ? AND status IN ('queued','running') ORDER BY created_at DESC, ${this.insertion} DESC LIMIT 1`,
      [dubId],
    );
    return row ? toRevoice(row) : null;
  }

  async setRevoiceStatus(id: string, status: RevoiceStatus, fields: { error?: string | null; revision?: number } = {}): Promise<void> {
    const finished = status === 'complete' || status === 'failed' ? now() : null;
    await this.sql.run('UPDATE dub_revoices SET status = ?, error = ?, revision = COALESCE(?, revision), finished_at = ? WHERE id = ?', [
      status,
      fields.error ?? null,
      fields.revision ?? null,
      finished,
      id,
    ]);
  }

  async recoverInterrupted(): Promise<void> {
    await this.sql.run("UPDATE dub_revoices SET status = 'queued' WHERE status = 'running'");
  }

  async checkpoints(revoiceId: string): Promise<CheckpointRecord[]> {
    const rows = await this.sql.all<CheckpointRow>('SELECT line_id, render_json, patch_file, attempt FROM dub_revoice_lines WHERE revoice_id = ? ORDER BY line_id', [revoiceId]);
    return rows.map((r) => ({ lineId: r.line_id, render: JSON.parse(r.render_json) as LineRender, patchFile: r.patch_file, attempt: r.attempt }));
  }

  async insertCheckpoint(revoiceId: string, checkpoint: CheckpointRecord): Promise<void> {
    await this.sql.run('INSERT INTO dub_revoice_lines (revoice_id, line_id, render_json, patch_file, attempt, created_at) VALUES (?, ?, ?, ?, ?, ?)', [
      revoiceId,
      checkpoint.lineId,
      JSON.stringify(checkpoint.render),
      checkpoint.patchFile,
      checkpoint.attempt,
      now(),
    ]);
  }

  async checkpointCount(revoiceId: string): Promise<number> {
    return Number((await this.sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM dub_revoice_lines WHERE revoice_id = ?', [revoiceId]))?.n ?? 0);
  }

  // ---- takes ----

  async insertTakes(dubId: string, lineId: number, takes: Array<Pick<TakeRecord, 'id' | 'jobId' | 'voice' | 'speed' | 'plan' | 'baseRevision'> & { source?: TakeSource }>): Promise<TakeRecord[]> {
    const top = await this.sql.get<{ n: number | null }>('SELECT MAX(number) AS n FROM dub_line_takes WHERE dub_id = ? AND line_id = ?', [dubId, lineId]);
    const first = Number(top?.n ?? 0) + 1;
    const at = now();
    for (const [i, t] of takes.entries()) {
      await this.sql.run(
        `INSERT INTO dub_line_takes (id, dub_id, line_id, number, job_id, voice, speed, source, status, plan_json, base_revision, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'queued', ?, ?, ?)`,
        [t.id, dubId, lineId, first + i, t.jobId, t.voice, t.speed, t.source ?? 'synthesized', JSON.stringify(t.plan), t.baseRevision, at],
      );
    }
    const ids = new Set(takes.map((t) => t.id));
    return (await this.takes(dubId, lineId)).filter((t) => ids.has(t.id));
  }

  async take(dubId: string, takeId: string): Promise<TakeRecord | null> {
    const row = await this.sql.get<TakeRow>(`SELECT ${TAKE_COLUMNS} FROM dub_line_takes WHERE dub_id = ? AND id = ?`, [dubId, takeId]);
    return row ? toTake(row) : null;
  }

  async takes(dubId: string, lineId: number): Promise<TakeRecord[]> {
    return (await this.sql.all<TakeRow>(`SELECT ${TAKE_COLUMNS} FROM dub_line_takes WHERE dub_id = ? AND line_id = ? ORDER BY number`, [dubId, lineId])).map(toTake);
  }

  async takesOfJob(jobId: string): Promise<TakeRecord[]> {
    return (await this.sql.all<TakeRow>(`SELECT ${TAKE_COLUMNS} FROM dub_line_takes WHERE job_id = ? ORDER BY number`, [jobId])).map(toTake);
  }

  async dubTakes(dubId: string): Promise<TakeRecord[]> {
    return (await this.sql.all<TakeRow>(`SELECT ${TAKE_COLUMNS} FROM dub_line_takes WHERE dub_id = ? ORDER BY line_id, number`, [dubId])).map(toTake);
  }

  async deleteTakes(dubId: string, ids: readonly string[]): Promise<string[]> {
    const deleted: string[] = [];
    for (let from = 0; from < ids.length; from += LINES_PER_INSERT) {
      const chunk = ids.slice(from, from + LINES_PER_INSERT);
      // One statement: a revision naming a take commits either before it (the take stays) or after (and finds it gone).
      const rows = await this.sql.all<{ id: string }>(
        `DELETE FROM dub_line_takes WHERE dub_id = ? AND id IN (${inList(chunk)})
           AND NOT EXISTS (SELECT 1 FROM dub_revisions r WHERE r.dub_id = dub_line_takes.dub_id AND r.take_id = dub_line_takes.id) RETURNING id`,
        [dubId, ...chunk],
      );
      deleted.push(...rows.map((r) => r.id));
    }
    return deleted;
  }

  async setTakeStatus(takeId: string, status: TakeStatus, fields: { error?: string | null; render?: LineRender } = {}): Promise<boolean> {
    const finished = status === 'ready' || status === 'failed' ? now() : null;
    const { changes } = await this.sql.run('UPDATE dub_line_takes SET status = ?, error = ?, render_json = COALESCE(?, render_json), finished_at = ? WHERE id = ?', [
      status,
      fields.error ?? null,
      fields.render ? JSON.stringify(fields.render) : null,
      finished,
      takeId,
    ]);
    return changes > 0;
  }
}
