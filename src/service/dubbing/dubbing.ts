import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { z } from 'zod';
import {
  DUB_LINE_TEXT_MAX,
  DubLinesInput,
  DubVoices,
  VoiceRef,
  REVIEW_STATUSES,
  type DubFromRecording,
  type LineEdit,
  type LineNote,
  type LineSplit,
  type ReviewStatus,
  type Dub,
  type DubLine,
  type DubPatch,
  type DubRevision,
  type LinePatch,
  type Revoice,
  type ValidationIssue,
} from '../../shared/schemas';
import type { Db } from '../storage/database';
import type { DataLayout } from '../storage/files';
import { fsyncDir } from '../storage/files';
import type { JobRunner } from '../jobs/job-runner';
import type { MediaTools } from '../media/tools';
import { NotMediaError, probeMedia } from '../media/probe';
import { frameBytes, readWavLayout } from '../media/wav';
import type { VoiceRegistry } from '../speech/synthesis/voice-registry';
import type { Aligner } from '../speech/types';
import { createPocketSphinxAligner, type ClosableAligner } from '../speech/alignment/pocketsphinx-aligner';
import { pocketSphinxAvailable } from '../speech/recognition/pocketsphinx/model';
import type { UploadedFile } from '../storage/uploaded-file';
import { signResource } from '../auth/signed-url';
import { DubStore, type DubRecord, type LineEditRecord, type LineRecord, type PlannedLine, type RevisionRecord, type RevoiceRecord } from './dub-store';
import type { SessionStore } from '../storage/session-store';
import { mergeLines, splitLine } from './line-edits';
import type { DubExportInput } from '../export/dub-cues';
import { DubFiles, revisionStem, sweepDubFiles } from './dub-files';
import { decodeToWav, MAX_DUB_BYTES, MAX_DUB_CHANNELS, probeDubAudio } from './dub-audio';
import { checkRetiming, checkUploadedLines, coveredByOther, lineState, linesFromSegments } from './line-rules';
import { DUB_PREPARE_JOB } from './prepare-job';
import { DUB_REVOICE_JOB } from './revoice-job';
import { ConflictError, InvalidInputError, issue, NotFoundError, TooLargeError, UnsupportedMediaError } from '../errors';
import { parseInput } from '../validation';

export const DUB_URL_TTL_SECONDS = 3600;

export interface DubbingDeps {
  db: Db;
  layout: DataLayout;
  tools: MediaTools;
  jobs: JobRunner;
  voices: VoiceRegistry;
  audioSecret: Buffer;
  env: NodeJS.ProcessEnv;
  sessions: SessionStore;
  /** The recording's current transcript revision (0 when never edited). */
  transcriptRevision: (sessionId: string) => Promise<number>;
}

export interface DubUpload {
  file: UploadedFile;
  background?: UploadedFile;
  name?: string;
  lines?: string;
  voices?: string;
  defaultVoice?: string;
}

/** The text parts of a dub upload, after JSON parts are parsed. */
const DubUploadFields = z.object({
  name: z.string().trim().min(1).max(200).optional(),
  lines: DubLinesInput.optional(),
  voices: DubVoices.optional(),
  default_voice: VoiceRef.optional(),
});

/** The resource a revision's signed address stands for. */
export function revisionResource(dubId: string, number: number): string {
  return `dub:${dubId}:${number}`;
}

function parseJsonPart(raw: string, field: string): unknown {
  try {
    return JSON.parse(raw);
  } catch (error) {
    throw new InvalidInputError([issue(['body', field], 'JSON decode error', 'json_invalid', raw.slice(0, 200), { error: (error as Error).message })]);
  }
}

/**
 * Dubs of a recording: upload with or without lines, lines and their corrections, voices, revisions and
 * revoices. Routes stay thin; the revoice itself is a durable job (revoice-job.ts).
 */
export class Dubbing {
  readonly store: DubStore;
  readonly files: DubFiles;
  /** Running revoices by dub id, so deleting a dub stops its revoice. */
  readonly cancellers = new Map<string, AbortController>();
  private aligner: ClosableAligner | null = null;

  constructor(private readonly deps: DubbingDeps) {
    this.store = new DubStore(deps.db);
    this.files = new DubFiles(deps.layout);
  }

  /** PocketSphinx forced alignment for revoiced words, started on first use; null when not installed. */
  wordAligner(): Aligner | null {
    if (!this.aligner && pocketSphinxAvailable(this.deps.env).ok) this.aligner = createPocketSphinxAligner({ env: this.deps.env });
    return this.aligner;
  }

  /** At start, before jobs resume: what a crash left half-done is swept or queued again. */
  recover(): void {
    sweepDubFiles(this.files, this.deps.layout, this.store);
    this.store.recoverInterrupted();
  }

  async close(): Promise<void> {
    await this.aligner?.close();
    this.aligner = null;
  }

  // ---- dubs ----

  dubOr404(sessionId: string, dubId: string): DubRecord {
    const dub = z.uuid().safeParse(dubId).success ? this.store.dub(sessionId, dubId) : null;
    if (!dub) throw new NotFoundError('Dub not found.');
    return dub;
  }

  private checkVoice(ref: string, loc: Array<string | number>): ValidationIssue | null {
    const found = this.deps.voices.lookupRef(ref);
    if (found.ok) return null;
    return issue(loc, found.message, 'voice_not_found', ref, { available: this.deps.voices.refs() });
  }

  private fail(issues: Array<ValidationIssue | null>): void {
    const real = issues.filter((i): i is ValidationIssue => i !== null);
    if (real.length) throw new InvalidInputError(real);
  }

  /**
   * Files an uploaded dub: checks every part first, decodes the audio (and the background stem, at the
   * dub's rate and channels) to WAV as revision 1, then records the dub, its lines, or a job to derive
   * them, in one transaction. Anything that fails leaves nothing behind.
   */
  async create(sessionId: string, upload: DubUpload): Promise<DubRecord> {
    const fields = parseInput(
      DubUploadFields,
      {
        name: upload.name,
        lines: upload.lines === undefined ? undefined : parseJsonPart(upload.lines, 'lines'),
        voices: upload.voices === undefined ? undefined : parseJsonPart(upload.voices, 'voices'),
        default_voice: upload.defaultVoice === '' ? undefined : upload.defaultVoice,
      },
      'body',
    );
    const name = fields.name ?? upload.file.fileName;
    const lines = fields.lines ?? null;
    const voices = fields.voices ?? {};
    const defaultVoice = fields.default_voice ?? null;
    this.fail([
      ...Object.entries(voices).map(([speaker, ref]) => (ref ? this.checkVoice(ref, ['body', 'voices', speaker]) : null)),
      defaultVoice ? this.checkVoice(defaultVoice, ['body', 'default_voice']) : null,
      ...(lines ?? []).map((l, i) => (l.voice ? this.checkVoice(l.voice, ['body', 'lines', i, 'voice']) : null)),
    ]);

    const audio = await this.readableAudio(upload.file);
    if (upload.background) await this.readableAudio(upload.background, 'background');
    const id = crypto.randomUUID();
    const dir = this.files.dir(sessionId, id);
    const revisionsDir = this.files.revisionsDir(sessionId, id);
    fs.mkdirSync(revisionsDir, { recursive: true });
    try {
      const revisionFile = `${revisionStem(1)}.wav`;
      const tmp = path.join(revisionsDir, `.${revisionFile}.tmp`);
      await decodeToWav(this.deps.tools, upload.file.path, tmp, audio);
      const fd = fs.openSync(tmp, 'r');
      const layout = (() => {
        try {
          return readWavLayout(fd);
        } finally {
          fs.closeSync(fd);
        }
      })();
      if (layout.frames === 0) throw new UnsupportedMediaError('The dub has no audio samples.', { code: 'unsupported_file' });
      const duration = layout.frames / layout.sampleRate;
      let accepted: ReturnType<typeof checkUploadedLines> | null = null;
      if (lines) {
        accepted = checkUploadedLines(lines, duration);
        if (!accepted.ok) throw new InvalidInputError(accepted.issues);
      }
      if (upload.background) {
        const bgTmp = path.join(dir, '.background.wav.tmp');
        await decodeToWav(this.deps.tools, upload.background.path, bgTmp, { ...audio, sampleFormat: 'f32' });
        fs.renameSync(bgTmp, this.files.background(sessionId, id));
      }
      fs.renameSync(tmp, path.join(revisionsDir, revisionFile));
      fsyncDir(revisionsDir);
      fsyncDir(dir);
      this.deps.db.transaction(() => {
        this.store.insertDub(
          {
            id,
            sessionId,
            name,
            fileName: upload.file.fileName,
            status: lines ? 'ready' : 'preparing',
            sampleRate: layout.sampleRate,
            channels: layout.channels,
            sampleFormat: layout.sampleFormat,
            frames: layout.frames,
            background: !!upload.background,
            defaultVoice,
            voices: Object.fromEntries(Object.entries(voices).filter((e): e is [string, string] => e[1] !== null)),
          },
          revisionFile,
        );
        if (accepted?.ok) {
          this.store.setLines(
            id,
            accepted.lines.map((l) => ({ id: l.id, speaker: l.speaker, start: l.start, end: l.end, text: l.text, voice: l.voice ?? null, words: [] })),
          );
          this.store.setProgress(id, 'ready', 1, 'complete');
        } else {
          this.deps.jobs.enqueue(DUB_PREPARE_JOB, sessionId, { dub_id: id });
        }
      })();
    } catch (error) {
      fs.rmSync(dir, { recursive: true, force: true });
      throw error;
    }
    return this.store.dubById(id)!;
  }

  /**
   * A dub of the recording itself: its original audio (converted to the dub's WAV by the prepare job,
   * while the dub is `preparing` with progress) and its current transcript's lines, with their corrected
   * speakers and words, at the transcript revision now current. 409 without a completed transcript.
   */
  async createFromRecording(sessionId: string, body: DubFromRecording): Promise<DubRecord> {
    const summary = (await this.deps.sessions.summary(sessionId))!;
    const transcript = await this.deps.sessions.transcript(sessionId);
    if (summary.status !== 'complete' || !transcript) {
      throw new ConflictError(`The recording has no completed transcript (status: ${summary.status}); a dub from the recording takes its lines from it.`);
    }
    const speakers = new Set(transcript.segments.map((s) => s.speaker));
    const voices = body.voices ?? {};
    this.fail([
      ...Object.entries(voices).flatMap(([speaker, ref]) => [
        speakers.has(speaker) ? null : issue(['body', 'voices', speaker], `The recording has no speaker "${speaker}". Its speakers: ${[...speakers].join(', ')}.`, 'unknown_speaker', speaker),
        ref ? this.checkVoice(ref, ['body', 'voices', speaker]) : null,
      ]),
      body.default_voice ? this.checkVoice(body.default_voice, ['body', 'default_voice']) : null,
    ]);
    const stored = await this.deps.sessions.storedName(sessionId);
    const original = stored ? this.deps.layout.original(sessionId, stored) : null;
    if (!original || !fs.existsSync(original)) throw new ConflictError("The recording's original audio is missing.");
    let audio;
    try {
      audio = await probeDubAudio(this.deps.tools, original);
    } catch (error) {
      if (error instanceof NotMediaError) throw new ConflictError(`The recording's audio cannot be decoded: ${error.message}`);
      throw error;
    }
    if (audio.channels < 1 || audio.channels > MAX_DUB_CHANNELS || !(audio.sampleRate > 0)) {
      throw new ConflictError(`The recording has ${audio.channels} channels; dubs take 1 to ${MAX_DUB_CHANNELS}.`);
    }
    if (audio.duration * audio.sampleRate * frameBytes(audio) > MAX_DUB_BYTES) {
      throw new ConflictError('The recording is too long to store as one WAV file (4 GiB of samples).');
    }
    const duration = audio.duration > 0 ? audio.duration : summary.duration;
    const lines = linesFromSegments(transcript.segments, duration, DUB_LINE_TEXT_MAX);
    const id = crypto.randomUUID();
    // The transcript revision the lines were taken from (read before the dub's synchronous transaction).
    const transcriptRevision = await this.deps.transcriptRevision(sessionId);
    this.deps.db.transaction(() => {
      this.store.insertDub(
        {
          id,
          sessionId,
          name: body.name ?? summary.file_name,
          fileName: summary.file_name,
          status: 'preparing',
          sampleRate: audio.sampleRate,
          channels: audio.channels,
          sampleFormat: audio.sampleFormat,
          // Until the conversion counts them; the prepare job records the real count.
          frames: Math.round(duration * audio.sampleRate),
          background: false,
          defaultVoice: body.default_voice ?? null,
          voices: Object.fromEntries(Object.entries(voices).filter((e): e is [string, string] => e[1] !== null)),
          source: 'recording',
          transcriptRevision,
        },
        `${revisionStem(1)}.wav`,
      );
      this.store.setLines(id, lines);
      this.store.setProgress(id, 'preparing', 0, 'queued');
      this.deps.jobs.enqueue(DUB_PREPARE_JOB, sessionId, { dub_id: id, source: 'recording' });
    })();
    return this.store.dubById(id)!;
  }

  /** Probes an uploaded part: decodable audio, at most 8 channels, small enough for WAV. */
  private async readableAudio(file: UploadedFile, part = 'file') {
    if (file.size === 0) throw new UnsupportedMediaError(`The ${part} is empty.`, { code: 'unsupported_file', param: part });
    try {
      await probeMedia(this.deps.tools, file.path);
      const audio = await probeDubAudio(this.deps.tools, file.path);
      if (audio.channels < 1 || audio.channels > MAX_DUB_CHANNELS || !(audio.sampleRate > 0)) {
        throw new UnsupportedMediaError(`The ${part} has ${audio.channels} channels; dubs take 1 to ${MAX_DUB_CHANNELS}.`, { code: 'unsupported_file', param: part });
      }
      if (audio.duration * audio.sampleRate * frameBytes(audio) > MAX_DUB_BYTES) {
        throw new TooLargeError(`The ${part} is too long to store as one WAV file (4 GiB of samples).`, { code: 'file_too_large', param: part });
      }
      return audio;
    } catch (error) {
      if (error instanceof NotMediaError) throw new UnsupportedMediaError(`The ${part} is not audio that can be decoded: ${error.message}`, { code: 'unsupported_file', param: part });
      throw error;
    }
  }

  patch(dub: DubRecord, body: DubPatch): DubRecord {
    const speakers = new Set(this.store.lines(dub.id).map((l) => l.speaker));
    this.fail([
      ...Object.entries(body.voices ?? {}).flatMap(([speaker, ref]) => [
        dub.status === 'ready' && !speakers.has(speaker)
          ? issue(['body', 'voices', speaker], `The dub has no speaker "${speaker}". Its speakers: ${[...speakers].join(', ')}.`, 'unknown_speaker', speaker)
          : null,
        ref ? this.checkVoice(ref, ['body', 'voices', speaker]) : null,
      ]),
      body.default_voice ? this.checkVoice(body.default_voice, ['body', 'default_voice']) : null,
    ]);
    const voices = { ...dub.voices };
    for (const [speaker, ref] of Object.entries(body.voices ?? {})) {
      if (ref === null) delete voices[speaker];
      else voices[speaker] = ref;
    }
    this.store.updateDub(dub.id, { name: body.name, defaultVoice: body.default_voice, voices });
    return this.store.dubById(dub.id)!;
  }

  async delete(dub: DubRecord): Promise<void> {
    this.cancellers.get(dub.id)?.abort(new Error('dub deleted'));
    this.store.deleteDub(dub.id);
    fs.rmSync(this.files.dir(dub.sessionId, dub.id), { recursive: true, force: true });
  }

  effectiveVoice(dub: DubRecord, line: Pick<LineRecord, 'voice' | 'speaker'>): string | null {
    return line.voice ?? dub.voices[line.speaker] ?? dub.defaultVoice ?? this.deps.voices.defaultRef();
  }

  toJson(dub: DubRecord): Dub {
    const lines = this.store.lines(dub.id);
    const renders = this.store.revision(dub.id, dub.currentRevision)?.renders ?? {};
    const states = lines.map((l) => ({ line: l, ...lineState(l, this.effectiveVoice(dub, l), renders[l.id], coveredByOther(l, renders)) }));
    const review = Object.fromEntries(REVIEW_STATUSES.map((status) => [status, lines.filter((l) => l.reviewStatus === status).length])) as Record<ReviewStatus, number>;
    return {
      id: dub.id,
      session_id: dub.sessionId,
      name: dub.name,
      file_name: dub.fileName,
      status: dub.status,
      progress: dub.progress,
      stage: dub.stage,
      error: dub.error,
      format: {
        sample_rate: dub.sampleRate,
        channels: dub.channels,
        sample_format: dub.sampleFormat,
        frames: dub.frames,
        duration: dub.frames / dub.sampleRate,
      },
      background: dub.background,
      default_voice: dub.defaultVoice,
      voices: dub.voices,
      speakers: [...new Set(lines.map((l) => l.speaker))],
      current_revision: dub.currentRevision,
      revision_count: this.store.revisions(dub.id).length,
      lines: {
        total: lines.length,
        corrected: lines.filter((l) => l.text !== l.originalText).length,
        pending: states.filter((s) => s.needsRevoice).length,
      },
      review: { ...review, left: lines.length - review.approved },
      source: dub.source,
      transcript_revision: dub.transcriptRevision,
      active_revoice: this.store.activeRevoice(dub.id)?.id ?? null,
      created_at: dub.createdAt,
      updated_at: dub.updatedAt,
    };
  }

  // ---- lines ----

  lineJson(dub: DubRecord, line: LineRecord, revision: RevisionRecord | null, notes?: LineNote[]): DubLine {
    const render = revision?.renders[line.id];
    const effective = this.effectiveVoice(dub, line);
    const { state, needsRevoice } = lineState(line, effective, render, coveredByOther(line, revision?.renders ?? {}));
    return {
      id: line.id,
      speaker: line.speaker,
      start: line.start,
      end: line.end,
      original_start: line.originalStart,
      original_end: line.originalEnd,
      text: line.text,
      original_text: line.originalText,
      corrected: line.text !== line.originalText,
      voice: line.voice,
      effective_voice: effective,
      state,
      needs_revoice: needsRevoice,
      words: state === 'voiced' && render ? render.words : line.words,
      render: render ?? null,
      review_status: line.reviewStatus,
      notes: notes ?? this.notesOf(dub, line),
      history: line.history,
      speed: line.speed,
      updated_at: line.updatedAt,
    };
  }

  /** A line's notes: its own, and those of the lines merged into it (their ids are in its history). */
  private notesOf(dub: DubRecord, line: LineRecord, all = this.store.notes(dub.id)): LineNote[] {
    const ids = new Set([line.id, ...line.history.filter((h) => h.op === 'merge').flatMap((h) => h.from.map((f) => f.id))]);
    return all.filter((n) => ids.has(n.lineId)).map((n) => ({ id: n.id, line_id: n.lineId, author: n.author, created_at: n.createdAt, text: n.text }));
  }

  lines(dub: DubRecord, filter: { review_status?: ReviewStatus; left?: boolean } = {}): DubLine[] {
    const revision = this.store.revision(dub.id, dub.currentRevision);
    const notes = this.store.notes(dub.id);
    return this.store
      .lines(dub.id)
      .filter((l) => filter.review_status === undefined || l.reviewStatus === filter.review_status)
      .filter((l) => filter.left === undefined || (l.reviewStatus !== 'approved') === filter.left)
      .map((l) => this.lineJson(dub, l, revision, this.notesOf(dub, l, notes)));
  }

  private lineJsonNow(dubId: string, lineId: number): DubLine {
    const dub = this.store.dubById(dubId)!;
    const line = this.store.lines(dubId).find((l) => l.id === lineId)!;
    return this.lineJson(dub, line, this.store.revision(dubId, dub.currentRevision));
  }

  lineOr404(dub: DubRecord, rawId: string): LineRecord {
    const id = /^\d{1,9}$/.test(rawId) ? Number(rawId) : NaN;
    const line = this.store.lines(dub.id).find((l) => l.id === id);
    if (!line) throw new NotFoundError('Line not found.');
    return line;
  }

  private requireReady(dub: DubRecord): void {
    if (dub.status !== 'ready') throw new ConflictError(`The dub's lines are not ready (status: ${dub.status}).`);
  }

  /**
   * Corrects a line: its text, voice, timing (within its neighbours) or speed, and/or its review status.
   * A change of text, voice, timing or speed puts the review back to `todo` (unless `review_status` is
   * sent with it) and is recorded for undo. Nothing changes unless all of it is valid.
   */
  patchLine(dub: DubRecord, line: LineRecord, body: LinePatch, author: string): DubLine {
    this.requireReady(dub);
    if (Object.keys(body).length === 0) {
      throw new InvalidInputError([issue(['body'], 'Send at least one of text, voice, start, end, speed, review_status', 'missing', {})]);
    }
    this.fail([body.voice ? this.checkVoice(body.voice, ['body', 'voice']) : null]);
    const start = body.start ?? line.start;
    const end = body.end ?? line.end;
    let timing = { start: line.start, end: line.end };
    if (start !== line.start || end !== line.end) {
      const checked = checkRetiming(this.store.lines(dub.id), line.id, start, end, dub.frames / dub.sampleRate);
      if (!checked.ok) throw new InvalidInputError(checked.issues);
      timing = checked;
    }
    const text = body.text ?? line.text;
    const voice = body.voice !== undefined ? body.voice : line.voice;
    const speed = body.speed !== undefined ? body.speed : line.speed;
    const changed = text !== line.text || voice !== line.voice || speed !== line.speed || timing.start !== line.start || timing.end !== line.end;
    const reviewStatus = body.review_status ?? (changed ? 'todo' : line.reviewStatus);
    this.deps.db.transaction(() => {
      this.store.updateLine(dub.id, { id: line.id, text, voice, speed, reviewStatus, ...timing });
      if (changed) {
        const after = this.store.lines(dub.id).find((l) => l.id === line.id)!;
        this.store.insertEdit(dub.id, { op: 'correct', author, before: [line], after: [after] });
      }
    })();
    return this.lineJsonNow(dub.id, line.id);
  }

  /** The word timings of a line's current text: the voiced words when voiced at it, the original's while unchanged. */
  private currentTimings(dub: DubRecord, line: LineRecord) {
    const render = this.store.revision(dub.id, dub.currentRevision)?.renders[line.id];
    if (render && render.text === line.text && render.line_start === line.start && render.line_end === line.end && render.words.length) return render.words;
    if (line.text === line.originalText && line.words.length) return line.words;
    return null;
  }

  /** Splits a line in two (at a word, a time, or both); the second part gets a new id. Undoable. */
  splitLine(dub: DubRecord, line: LineRecord, body: LineSplit, author: string): { lines: DubLine[] } {
    this.requireReady(dub);
    const at = new Date().toISOString();
    let ids: number[] = [];
    this.deps.db.transaction(() => {
      const newId = this.store.takeLineId(dub.id);
      const result = splitLine(line, this.currentTimings(dub, line), { wordIndex: body.word_index, at: body.at }, newId, at);
      if (!result.ok) throw new InvalidInputError(result.issues);
      this.store.putLines(dub.id, [result.first, result.second]);
      this.store.insertEdit(dub.id, { op: 'split', author, before: [line], after: [result.first, result.second] });
      ids = [result.first.id, result.second.id];
    })();
    return { lines: ids.map((id) => this.lineJsonNow(dub.id, id)) };
  }

  /** Merges the next line into this one. Undoable. */
  mergeLine(dub: DubRecord, line: LineRecord, nextId: number, author: string): DubLine {
    this.requireReady(dub);
    const result = mergeLines(this.store.lines(dub.id), line, nextId, new Date().toISOString());
    if (!result.ok) throw new InvalidInputError(result.issues);
    this.deps.db.transaction(() => {
      this.store.deleteLines(dub.id, [result.removed.id]);
      this.store.putLines(dub.id, [result.merged]);
      this.store.insertEdit(dub.id, { op: 'merge', author, before: [line, result.removed], after: [result.merged] });
    })();
    return this.lineJsonNow(dub.id, line.id);
  }

  editJson(edit: LineEditRecord): LineEdit {
    return {
      seq: edit.seq,
      op: edit.op as LineEdit['op'],
      author: edit.author,
      created_at: edit.createdAt,
      undone: edit.undone,
      before: edit.before.map((l) => l.id),
      after: edit.after.map((l) => l.id),
    };
  }

  /**
   * Undoes the latest edit still in force (or redoes the earliest undone one): the lines it made are
   * replaced by the lines it took, as they were (text, timing, voice, speed, review status, history).
   */
  undoRedo(dub: DubRecord, direction: 'undo' | 'redo'): { edit: LineEdit; lines: DubLine[] } {
    this.requireReady(dub);
    const edits = this.store.edits(dub.id);
    const edit = direction === 'undo' ? edits.filter((e) => !e.undone).at(-1) : edits.find((e) => e.undone);
    if (!edit) throw new ConflictError(direction === 'undo' ? 'There is no line edit to undo.' : 'There is no undone line edit to redo.');
    const [remove, put] = direction === 'undo' ? [edit.after, edit.before] : [edit.before, edit.after];
    const current = new Map(this.store.lines(dub.id).map((l) => [l.id, l]));
    // Every edit of the lines goes through this stack, so the lines it made are still as it left them.
    const same = (a: LineRecord, b: LineRecord | undefined) =>
      b !== undefined && a.text === b.text && a.start === b.start && a.end === b.end && a.voice === b.voice && a.speaker === b.speaker;
    if (!remove.every((l) => same(l, current.get(l.id)))) {
      throw new ConflictError(`The lines of edit ${edit.seq} have changed since; it cannot be ${direction === 'undo' ? 'undone' : 'redone'}.`);
    }
    this.deps.db.transaction(() => {
      this.store.deleteLines(dub.id, remove.map((l) => l.id));
      this.store.putLines(dub.id, put.map((l) => ({ ...l, updatedAt: new Date().toISOString() })));
      this.store.setEditUndone(dub.id, edit.seq, direction === 'undo');
    })();
    const after = this.store.edits(dub.id).find((e) => e.seq === edit.seq)!;
    return { edit: this.editJson(after), lines: put.map((l) => this.lineJsonNow(dub.id, l.id)) };
  }

  addNote(dub: DubRecord, line: LineRecord, text: string, author: string): LineNote {
    const note = { id: crypto.randomUUID(), lineId: line.id, author, text, createdAt: new Date().toISOString() };
    this.store.insertNote(dub.id, note);
    return { id: note.id, line_id: note.lineId, author: note.author, created_at: note.createdAt, text: note.text };
  }

  // ---- exports (issue 32) ----

  /** What the dub's exports read: its lines against the current revision, and the regions its revoices wrote. */
  exportInput(dub: DubRecord, media: DubExportInput['media'], speakerNames: Record<string, string>): { input: DubExportInput; revision: RevisionRecord; regions: Array<{ start: number; end: number }> } {
    this.requireReady(dub);
    const revision = this.store.revision(dub.id, dub.currentRevision)!;
    const lines = this.lines(dub).map((l) => ({ ...l, revoiced: revision.renders[l.id] !== undefined }));
    return {
      revision,
      // Every region a revoice wrote in this revision's chain: together, all of its revoiced audio.
      regions: Object.values(revision.renders).map((r) => ({ start: r.region.start_frame, end: r.region.end_frame })),
      input: {
        fileName: `${dub.name.replace(/\.[^.]*$/, '')}-r${revision.number}.wav`,
        duration: dub.frames / dub.sampleRate,
        channels: dub.channels,
        sampleRate: dub.sampleRate,
        lines,
        media,
        speakerNames,
      },
    };
  }

  // ---- revisions ----

  revisionOr404(dub: DubRecord, raw: string): RevisionRecord {
    const number = /^\d{1,9}$/.test(raw) ? Number(raw) : NaN;
    const revision = Number.isFinite(number) ? this.store.revision(dub.id, number) : null;
    if (!revision) throw new NotFoundError('Revision not found.');
    return revision;
  }

  revisionFile(dub: DubRecord, revision: RevisionRecord): string {
    return this.files.revision(dub.sessionId, dub.id, revision.fileName);
  }

  audioAddress(dub: DubRecord, number: number, baseUrl: string): DubRevision['audio'] {
    const expires = Math.floor(Date.now() / 1000) + DUB_URL_TTL_SECONDS;
    const signature = signResource(this.deps.audioSecret, revisionResource(dub.id, number), expires);
    const url = `${baseUrl}/v1/speech/transcriptions/${dub.sessionId}/dubs/${dub.id}/revisions/${number}/file?expires=${expires}&signature=${signature}`;
    return { url, download_url: `${url}&download=1`, expires_in: DUB_URL_TTL_SECONDS };
  }

  revisionJson(dub: DubRecord, revision: RevisionRecord, baseUrl: string): DubRevision {
    return {
      number: revision.number,
      base: revision.base,
      source: revision.source,
      revoice_id: revision.revoiceId,
      lines_revoiced: revision.linesRevoiced,
      current: revision.number === dub.currentRevision,
      created_at: revision.createdAt,
      audio: this.audioAddress(dub, revision.number, baseUrl),
    };
  }

  /** Makes an earlier (or later) revision the current one again; the others stay. */
  restore(dub: DubRecord, revision: RevisionRecord): DubRecord {
    const active = this.store.activeRevoice(dub.id);
    if (active) throw new ConflictError(`A revoice is running (${active.id}); restore once it has finished.`);
    this.store.updateDub(dub.id, { currentRevision: revision.number });
    return this.store.dubById(dub.id)!;
  }

  // ---- revoice ----

  /** The lines a revoice of the current revision would voice, frozen as they are now. */
  plan(dub: DubRecord): PlannedLine[] {
    const lines = this.store.lines(dub.id);
    const renders = this.store.revision(dub.id, dub.currentRevision)?.renders ?? {};
    const duration = dub.frames / dub.sampleRate;
    const planned: PlannedLine[] = [];
    lines.forEach((line, i) => {
      const voice = this.effectiveVoice(dub, line);
      if (!lineState(line, voice, renders[line.id], coveredByOther(line, renders)).needsRevoice) return;
      if (voice === null) throw new ConflictError('No voice engine is installed, so no line can be voiced. Install festival and festvox-us-slt-hts (or see GET /v1/audio/models).');
      const found = this.deps.voices.lookupRef(voice);
      if (!found.ok) throw new ConflictError(`Line ${line.id} cannot be voiced: ${found.message}`);
      planned.push({
        lineId: line.id,
        speaker: line.speaker,
        text: line.text,
        voice,
        start: line.start,
        end: line.end,
        originalStart: line.originalStart,
        originalEnd: line.originalEnd,
        nextStart: lines[i + 1]?.start ?? duration,
        previousEnd: lines[i - 1]?.end ?? 0,
        speed: line.speed,
      });
    });
    return planned;
  }

  /**
   * Starts a revoice of every line that needs one, or returns the one already running. Null when no line
   * needs voicing (a no-op: no revision is written).
   */
  startRevoice(dub: DubRecord): RevoiceRecord | null {
    if (dub.status !== 'ready') throw new ConflictError(`The dub's lines are not ready (status: ${dub.status}).`);
    const active = this.store.activeRevoice(dub.id);
    if (active) return active;
    const plan = this.plan(dub);
    if (plan.length === 0) return null;
    const id = crypto.randomUUID();
    this.deps.db.transaction(() => {
      const jobId = this.deps.jobs.enqueue(DUB_REVOICE_JOB, dub.sessionId, { revoice_id: id, dub_id: dub.id });
      this.store.insertRevoice({ id, dubId: dub.id, jobId, baseRevision: dub.currentRevision, plan });
    })();
    return this.store.revoice(id)!;
  }

  revoiceOr404(dub: DubRecord, id: string): RevoiceRecord {
    const revoice = z.uuid().safeParse(id).success ? this.store.revoice(id) : null;
    if (!revoice || revoice.dubId !== dub.id) throw new NotFoundError('Revoice not found.');
    return revoice;
  }

  /** Resolves when the revoice's job settles, or after `seconds`. */
  waitFor(revoice: RevoiceRecord, seconds: number): Promise<void> {
    const settledAlready = () => {
      const status = this.store.revoice(revoice.id)?.status;
      return status === undefined || status === 'complete' || status === 'failed';
    };
    if (seconds <= 0 || settledAlready()) return Promise.resolve();
    return new Promise((resolve) => {
      const onSettled = (job: { id: string }) => {
        if (job.id === revoice.jobId) finish();
      };
      const timer = setTimeout(() => finish(), seconds * 1000);
      const finish = () => {
        clearTimeout(timer);
        this.deps.jobs.off('settled', onSettled);
        resolve();
      };
      this.deps.jobs.on('settled', onSettled);
    });
  }

  revoiceJson(dub: DubRecord, revoice: RevoiceRecord, baseUrl: string): Revoice {
    const job = this.deps.jobs.get(revoice.jobId);
    const checkpoints = new Map(this.store.checkpoints(revoice.id).map((c) => [c.lineId, c]));
    const revision = revoice.revision !== null ? this.store.revision(dub.id, revoice.revision) : null;
    return {
      id: revoice.id,
      dub_id: dub.id,
      status: revoice.status,
      progress: revoice.status === 'complete' ? 1 : (job?.progress ?? 0),
      stage: revoice.status === 'complete' ? 'complete' : (job?.stage ?? null),
      error: revoice.error,
      attempts: job?.attempts ?? 0,
      base_revision: revoice.baseRevision,
      revision: revision ? this.revisionJson(dub, revision, baseUrl) : null,
      lines: revoice.plan.map((line) => {
        const done = checkpoints.get(line.lineId);
        return {
          line_id: line.lineId,
          text: line.text,
          voice: line.voice,
          status: done ? ('done' as const) : ('pending' as const),
          attempt: done?.attempt ?? null,
          render: done ? { ...done.render, revision: revoice.revision ?? 0 } : null,
        };
      }),
      created_at: revoice.createdAt,
      finished_at: revoice.finishedAt,
    };
  }

  /** The answer to a revoice request with nothing to do. */
  noOpJson(dub: DubRecord, baseUrl: string): Revoice {
    const current = this.store.revision(dub.id, dub.currentRevision)!;
    return {
      id: null,
      dub_id: dub.id,
      status: 'no_op',
      progress: 1,
      stage: 'nothing to revoice',
      error: null,
      attempts: 0,
      base_revision: dub.currentRevision,
      revision: this.revisionJson(dub, current, baseUrl),
      lines: [],
      created_at: null,
      finished_at: null,
    };
  }
}
