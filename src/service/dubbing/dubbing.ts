import fs from 'node:fs';
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
import type { DataLayout } from '../storage/files';
import type { StoredFiles } from '../storage/stored-files';
import type { JobQueue } from '../jobs/job-runner';
import type { MediaTools } from '../media/tools';
import { NotMediaError, probeMedia } from '../media/probe';
import { frameBytes, readWavLayout } from '../media/wav';
import type { VoiceRegistry } from '../speech/synthesis/voice-registry';
import type { Aligner } from '../speech/types';
import { createPocketSphinxAligner, type ClosableAligner } from '../speech/alignment/pocketsphinx-aligner';
import { pocketSphinxAvailable } from '../speech/recognition/pocketsphinx/model';
import type { UploadedFile } from '../storage/uploaded-file';
import { signResource } from '../auth/signed-url';
import type { DubStore, DubRecord, LineEditRecord, LineRecord, NoteRecord, PlannedLine, RevisionRecord, RevoiceRecord, TakeRecord } from '../storage/dub-store';
import type { SessionStore } from '../storage/session-store';
import { mergeLines, splitLine } from './line-edits';
import type { DubExportInput } from '../export/dub-cues';
import { DubFiles, dubKeys, revisionStem, sweepDubFiles } from './dub-files';
import { recordTake } from './recorded-take/record-take';
import { decodeToWav, MAX_DUB_BYTES, MAX_DUB_CHANNELS, probeDubAudio } from './dub-audio';
import { checkRetiming, checkUploadedLines, coveredByOther, lineState, linesFromSegments } from './line-rules';
import { cueOut } from '../../shared/dubbing/cue-out';
import { recordingDubName } from './dub-name';
import { DUB_CONVERT_JOB, DUB_PREPARE_JOB, DUB_READYING_JOBS } from './prepare-job';
import { DUB_REVOICE_JOB } from './revoice-job';
import { measureSpeakerPitch } from './speaker-pitch';
import { DubTakes, effectiveGuide, plannedLine } from './takes';
import { ConflictError, InvalidInputError, issue, NotFoundError, TooLargeError, UnsupportedMediaError } from '../errors';
import { parseInput } from '../validation';
import type { AuditStore, NewAuditEntry } from '../storage/audit-store';
import type { AuditKind } from '../../shared/schemas/audit';
import { currentActor } from '../audit/actor';

/** A dub as the service keeps it, as the routes name it. */
export type { DubRecord };

export const DUB_URL_TTL_SECONDS = 3600;

export interface DubbingDeps {
  /** The dubbing tables (storage/dub-store.ts), built by the composition root for the database in use. */
  store: DubStore;
  layout: DataLayout;
  /** The recording's original, as a local file for the decoder (a dub made from the recording). */
  files: StoredFiles;
  tools: MediaTools;
  jobs: JobQueue;
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
    throw new InvalidInputError([issue([field], 'JSON decode error', 'json_invalid', raw.slice(0, 200), { error: (error as Error).message })]);
  }
}

/**
 * Dubs of a recording: upload with or without lines, lines and their corrections, voices, revisions and
 * revoices. Routes stay thin; the revoice itself is a durable job (revoice-job.ts).
 */
export class Dubbing {
  readonly store: DubStore;
  readonly files: DubFiles;
  /** Takes of a line. */
  readonly takes: DubTakes;
  private aligner: ClosableAligner | null = null;

  constructor(private readonly deps: DubbingDeps) {
    this.store = deps.store;
    this.files = new DubFiles(deps.files, deps.layout);
    this.takes = new DubTakes({
      store: this.store,
      files: this.files,
      jobs: deps.jobs,
      voices: deps.voices,
      audioSecret: deps.audioSecret,
      effectiveVoice: (dub, line) => this.effectiveVoice(dub, line),
      lineJson: (dubId, lineId) => this.lineJsonNow(dubId, lineId),
      revisionJson: async (dub, number, baseUrl) => this.revisionJson(dub, (await this.store.revision(dub.id, number))!, baseUrl),
    });
  }

  /** PocketSphinx forced alignment for revoiced words, started on first use; null when not installed. */
  wordAligner(): Aligner | null {
    if (!this.aligner && pocketSphinxAvailable(this.deps.env).ok) this.aligner = createPocketSphinxAligner({ env: this.deps.env });
    return this.aligner;
  }

  /**
   * At every start, before jobs resume: files a crash left that no row owns go (in team mode only those older
   * than `graceMs`: another node may be about to commit the row naming one).
   */
  async sweep(graceMs = 0): Promise<number> {
    return sweepDubFiles(this.files, this.store, { graceMs });
  }

  /** The embedded service's start, before jobs resume: what a crash left half-done is swept or queued again. */
  async recover(): Promise<void> {
    await this.sweep();
    await this.store.recoverInterrupted();
  }

  async close(): Promise<void> {
    await this.aligner?.close();
    this.aligner = null;
  }

  // ---- dubs ----

  async requireDub(sessionId: string, dubId: string): Promise<DubRecord> {
    const dub = z.uuid().safeParse(dubId).success ? await this.store.dub(sessionId, dubId) : null;
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
      null,
    );
    const name = fields.name ?? upload.file.fileName;
    const lines = fields.lines ?? null;
    const voices = fields.voices ?? {};
    const defaultVoice = fields.default_voice ?? null;
    this.fail([
      ...Object.entries(voices).map(([speaker, ref]) => (ref ? this.checkVoice(ref, ['voices', speaker]) : null)),
      defaultVoice ? this.checkVoice(defaultVoice, ['default_voice']) : null,
      ...(lines ?? []).map((l, i) => (l.voice ? this.checkVoice(l.voice, ['lines', i, 'voice']) : null)),
    ]);

    const audio = await this.readableAudio(upload.file);
    if (upload.background) await this.readableAudio(upload.background, 'background');
    const id = crypto.randomUUID();
    // Decoded in this node's scratch, then stored whole before the dub's row commits.
    const tmp = this.files.scratchFile('.wav');
    const bgTmp = this.files.scratchFile('.wav');
    try {
      const revisionFile = `${revisionStem(1)}.wav`;
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
        await decodeToWav(this.deps.tools, upload.background.path, bgTmp, { ...audio, sampleFormat: 'f32' });
        await this.files.store(dubKeys.background(sessionId, id), bgTmp);
      }
      // Measured before the file moves into the store (a folder store's store is a rename).
      const speakerPitch = accepted?.ok ? measureSpeakerPitch(tmp, accepted.lines) : null;
      await this.files.store(dubKeys.revision(sessionId, id, revisionFile), tmp);
      // The dub and its job commit (or roll back) together.
      await this.store.transaction(async (store, jobs) => {
        await store.insertDub(
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
          await store.setLines(
            id,
            accepted.lines.map((l) => ({ id: l.id, speaker: l.speaker, start: l.start, end: l.end, text: l.text, voice: l.voice ?? null, words: [] })),
          );
          await store.setSpeakerPitch(id, speakerPitch!);
          await store.setProgress(id, 'ready', 1, 'complete');
        } else {
          await this.deps.jobs.enqueue(DUB_PREPARE_JOB, sessionId, { dub_id: id }, jobs);
        }
      });
    } catch (error) {
      await this.files.removeDub(sessionId, id);
      throw error;
    } finally {
      for (const file of [tmp, bgTmp]) fs.rmSync(file, { force: true });
    }
    return (await this.store.dubById(id))!;
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
        speakers.has(speaker) ? null : issue(['voices', speaker], `The recording has no speaker "${speaker}". Its speakers: ${[...speakers].join(', ')}.`, 'unknown_speaker', speaker),
        ref ? this.checkVoice(ref, ['voices', speaker]) : null,
      ]),
      body.default_voice ? this.checkVoice(body.default_voice, ['default_voice']) : null,
    ]);
    const stored = await this.deps.sessions.storedName(sessionId);
    if (!stored || !(await this.deps.files.statOriginal(sessionId, stored))) throw new ConflictError("The recording's original audio is missing.");
    let audio;
    try {
      audio = await this.deps.files.withOriginal(sessionId, stored, (original) => probeDubAudio(this.deps.tools, original));
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
    // The transcript revision the lines were taken from.
    const transcriptRevision = await this.deps.transcriptRevision(sessionId);
    await this.store.transaction(async (store, jobs) => {
      await store.insertDub(
        {
          id,
          sessionId,
          name: body.name ?? recordingDubName(summary.file_name, (await store.dubs(sessionId)).map((d) => d.name)),
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
      await store.setLines(id, lines);
      await store.setProgress(id, 'preparing', 0, 'queued');
      await this.deps.jobs.enqueue(DUB_CONVERT_JOB, sessionId, { dub_id: id, source: 'recording' }, jobs);
    });
    return (await this.store.dubById(id))!;
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

  async patch(dub: DubRecord, body: DubPatch): Promise<DubRecord> {
    const speakers = new Set((await this.store.lines(dub.id)).map((l) => l.speaker));
    this.fail([
      ...Object.entries(body.voices ?? {}).flatMap(([speaker, ref]) => [
        dub.status === 'ready' && !speakers.has(speaker)
          ? issue(['voices', speaker], `The dub has no speaker "${speaker}". Its speakers: ${[...speakers].join(', ')}.`, 'unknown_speaker', speaker)
          : null,
        ref ? this.checkVoice(ref, ['voices', speaker]) : null,
      ]),
      body.default_voice ? this.checkVoice(body.default_voice, ['default_voice']) : null,
    ]);
    await this.store.transaction(async (store) => {
      // The voices as they are now (another request may have set a speaker's since): only the ones sent change.
      if (!(await store.lockDub(dub.id))) throw new NotFoundError('Dub not found.');
      const voices = { ...(await store.dubById(dub.id))!.voices };
      for (const [speaker, ref] of Object.entries(body.voices ?? {})) {
        if (ref === null) delete voices[speaker];
        else voices[speaker] = ref;
      }
      await store.updateDub(dub.id, { name: body.name, defaultVoice: body.default_voice, voices });
      if (body.guide !== undefined) await store.setDubGuide(dub.id, body.guide);
    });
    return (await this.store.dubById(dub.id))!;
  }

  /**
   * Deletes a dub: its unfinished preparation, revoice and takes jobs are cancelled wherever they run (a team's
   * worker sees the job's record cancelled and stops it; the embedded runner stops it at once), and once they
   * have stopped, its rows (a job started later finds nothing to do) and its files.
   */
  async delete(dub: DubRecord): Promise<void> {
    const preparing = (await Promise.all(DUB_READYING_JOBS.map((kind) => this.deps.jobs.unfinishedOfKind(kind, dub.sessionId)))).flat().filter((j) => j.payload.dub_id === dub.id);
    await this.deps.jobs.cancel([...preparing.map((j) => j.id), ...(await this.store.unfinishedJobIds(dub.id))]);
    await this.store.deleteDub(dub.id);
    await this.files.removeDub(dub.sessionId, dub.id);
  }

  /**
   * The line's voice, else its speaker's, else the dub's default, else the most natural installed voice of
   * the gender the speaker's pitch suggests (speaker_pitch), else the service's default voice.
   */
  effectiveVoice(dub: DubRecord, line: Pick<LineRecord, 'voice' | 'speaker'>): string | null {
    const gender = Object.hasOwn(dub.speakerPitch, line.speaker) ? dub.speakerPitch[line.speaker]!.gender : null;
    return line.voice ?? dub.voices[line.speaker] ?? dub.defaultVoice ?? (gender ? this.deps.voices.defaultRef(gender) : null) ?? this.deps.voices.defaultRef();
  }

  async toJson(dub: DubRecord): Promise<Dub> {
    const [lines, revision, revisions, active, counts] = await Promise.all([
      this.store.lines(dub.id),
      this.store.revision(dub.id, dub.currentRevision),
      this.store.revisions(dub.id),
      this.store.activeRevoice(dub.id),
      this.store.reviewCounts(dub.id),
    ]);
    const renders = revision?.renders ?? {};
    const states = lines.map((l) => ({ line: l, ...lineState(l, this.effectiveVoice(dub, l), renders[l.id], coveredByOther(l, renders), effectiveGuide(dub, l)) }));
    const review = Object.fromEntries(REVIEW_STATUSES.map((status) => [status, counts[status]])) as Record<ReviewStatus, number>;
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
      speaker_pitch: dub.speakerPitch,
      guide: dub.guide ?? null,
      current_revision: dub.currentRevision,
      revision_count: revisions.length,
      lines: {
        total: lines.length,
        corrected: lines.filter((l) => l.text !== l.originalText).length,
        pending: states.filter((s) => s.needsRevoice).length,
      },
      review: { ...review, left: lines.length - review.approved },
      source: dub.source,
      transcript_revision: dub.transcriptRevision,
      active_revoice: active?.id ?? null,
      lines_revision: dub.linesRevision,
      created_at: dub.createdAt,
      updated_at: dub.updatedAt,
    };
  }

  // ---- lines ----

  /** A line as the API shows it; `notes` are all of the dub's notes (read them with `store.notes`). */
  lineJson(dub: DubRecord, line: LineRecord, revision: RevisionRecord | null, notes: NoteRecord[]): DubLine {
    const render = revision?.renders[line.id];
    const effective = this.effectiveVoice(dub, line);
    const { state, needsRevoice } = lineState(line, effective, render, coveredByOther(line, revision?.renders ?? {}), effectiveGuide(dub, line));
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
      notes: this.notesOf(line, notes),
      history: line.history,
      speed: line.speed,
      guide: line.guide ?? null,
      effective_guide: effectiveGuide(dub, line),
      revision: line.revision,
      updated_at: line.updatedAt,
    };
  }

  /** A line's notes: its own, and those of the lines merged into it (their ids are in its history). */
  private notesOf(line: LineRecord, all: NoteRecord[]): LineNote[] {
    const ids = new Set([line.id, ...line.history.filter((h) => h.op === 'merge').flatMap((h) => h.from.map((f) => f.id))]);
    return all.filter((n) => ids.has(n.lineId)).map((n) => ({ id: n.id, line_id: n.lineId, author: n.author, created_at: n.createdAt, text: n.text }));
  }

  async lines(dub: DubRecord, filter: { review_status?: ReviewStatus; left?: boolean } = {}): Promise<DubLine[]> {
    const [revision, notes, lines] = await Promise.all([this.store.revision(dub.id, dub.currentRevision), this.store.notes(dub.id), this.store.lines(dub.id)]);
    return lines
      .filter((l) => filter.review_status === undefined || l.reviewStatus === filter.review_status)
      .filter((l) => filter.left === undefined || (l.reviewStatus !== 'approved') === filter.left)
      .map((l) => this.lineJson(dub, l, revision, notes));
  }

  /** A line as it is now, with the dub's current revision and notes. */
  async lineJsonNow(dubId: string, lineId: number): Promise<DubLine> {
    const dub = (await this.store.dubById(dubId))!;
    const [lines, revision, notes] = await Promise.all([this.store.lines(dubId), this.store.revision(dubId, dub.currentRevision), this.store.notes(dubId)]);
    return this.lineJson(dub, lines.find((l) => l.id === lineId)!, revision, notes);
  }

  /** An uploaded recording of a line, stored as a ready take beside the synthesized ones. */
  recordTake(dub: DubRecord, line: LineRecord, file: UploadedFile, countIn: number): Promise<TakeRecord> {
    return recordTake({ store: this.store, files: this.files, tools: this.deps.tools }, dub, line, file, countIn);
  }

  async requireLine(dub: DubRecord, rawId: string): Promise<LineRecord> {
    const id = /^\d{1,9}$/.test(rawId) ? Number(rawId) : NaN;
    const line = (await this.store.lines(dub.id)).find((l) => l.id === id);
    if (!line) throw new NotFoundError('Line not found.');
    return line;
  }

  private requireReady(dub: DubRecord): void {
    if (dub.status !== 'ready') throw new ConflictError(`The dub's lines are not ready (status: ${dub.status}).`);
  }

  /**
   * Runs an edit of a dub's lines in one transaction that holds the dub, on the line as it is now (another
   * request may have changed it since it was looked up): nothing changes unless `edit` completes.
   */
  private editLines<T>(dub: DubRecord, lineId: number, edit: (store: DubStore, line: LineRecord, lines: LineRecord[], audit: AuditStore) => Promise<T>): Promise<T> {
    return this.withTakesPruned(dub, async (store, audit) => {
      if (!(await store.lockDub(dub.id))) throw new NotFoundError('Dub not found.');
      const lines = await store.lines(dub.id);
      const line = lines.find((l) => l.id === lineId);
      if (!line) throw new NotFoundError('Line not found.');
      return edit(store, line, lines, audit);
    });
  }

  /**
   * Makes the audit entries about a dub (or one of its lines), by whoever the work in progress acts for. Its
   * project is read first, outside the transaction the entries go into (SQLite's reads outside one wait for it).
   */
  private async dubEntries(dub: DubRecord): Promise<(kind: AuditKind, detail: Record<string, unknown>, lineId?: number) => NewAuditEntry> {
    const project = (await this.deps.sessions.summary(dub.sessionId))?.project;
    return (kind, detail, lineId) => ({
      kind,
      actor: currentActor(),
      project: project ? { id: project.id, key: project.key } : null,
      object: lineId === undefined ? { type: 'dub', id: dub.id } : { type: 'dub_line', id: `${dub.id}/${lineId}` },
      detail: { recording: dub.sessionId, dub: dub.id, ...(lineId === undefined ? {} : { line: lineId }), ...detail },
    });
  }

  /**
   * A transaction that changes lines (it locks the dub first): the takes the change made unusable go with it
   * (their rows in it, their files after it commits; takes.ts unusableTakes says which).
   */
  async withTakesPruned<T>(dub: DubRecord, change: (store: DubStore, audit: AuditStore) => Promise<T>): Promise<T> {
    const { result, removed } = await this.store.transaction(async (store, _jobs, audit) => {
      const result = await change(store, audit);
      return { result, removed: await this.takes.pruneRows(store, dub) };
    });
    await this.takes.removeFiles(dub, removed);
    return result;
  }

  /**
   * Corrects a line: its text, voice, timing (within its neighbours) or speed, and/or its review status.
   * A change of text, voice, timing or speed puts the review back to `todo` (unless `review_status` is
   * sent with it) and is recorded for undo. Nothing changes unless all of it is valid.
   */
  async patchLine(dub: DubRecord, found: LineRecord, body: LinePatch, author: string): Promise<DubLine> {
    this.requireReady(dub);
    const entry = await this.dubEntries(dub);
    if (Object.keys(body).filter((k) => k !== 'base_revision').length === 0) {
      throw new InvalidInputError([issue([], 'Send at least one of text, voice, start, end, speed, review_status', 'missing', body)]);
    }
    this.fail([body.voice ? this.checkVoice(body.voice, ['voice']) : null]);
    await this.editLines(dub, found.id, async (store, line, lines, audit) => {
      if (body.base_revision !== undefined) await this.checkBaseRevision(store, dub, line, body.base_revision);
      const start = body.start ?? line.start;
      const end = body.end ?? line.end;
      let timing = { start: line.start, end: line.end };
      if (start !== line.start || end !== line.end) {
        const checked = checkRetiming(lines, line.id, start, end, dub.frames / dub.sampleRate);
        if (!checked.ok) throw new InvalidInputError(checked.issues);
        timing = checked;
      }
      const text = body.text ?? line.text;
      const voice = body.voice !== undefined ? body.voice : line.voice;
      const speed = body.speed !== undefined ? body.speed : line.speed;
      const guide = body.guide !== undefined ? body.guide : (line.guide ?? null);
      const changed =
        text !== line.text || voice !== line.voice || speed !== line.speed || guide !== (line.guide ?? null) || timing.start !== line.start || timing.end !== line.end;
      const reviewStatus = body.review_status ?? (changed ? 'todo' : line.reviewStatus);
      await store.updateLine(dub.id, { id: line.id, text, voice, speed, reviewStatus, ...timing });
      if (guide !== (line.guide ?? null)) await store.setLineGuide(dub.id, line.id, guide);
      if (changed) {
        const after = (await store.lines(dub.id)).find((l) => l.id === line.id)!;
        const seq = await store.insertEdit(dub.id, { op: 'correct', author, before: [line], after: [after] });
        const fields = (['text', 'voice', 'speed', 'start', 'end'] as const).filter((f) => after[f] !== line[f]);
        await audit.append(entry('dub.line_edited', { op: 'correct', seq, fields }, line.id));
      }
      if (reviewStatus !== line.reviewStatus && body.review_status !== undefined) {
        await audit.append(entry('dub.line_reviewed', { review_status: reviewStatus, previous: line.reviewStatus }, line.id));
      }
    });
    return this.lineJsonNow(dub.id, found.id);
  }

  /** 409 when the line changed after the revision the edit was made on (or that revision is not one the dub has reached). */
  private async checkBaseRevision(store: DubStore, dub: DubRecord, line: LineRecord, base: number): Promise<void> {
    const latest = (await store.dubById(dub.id))!.linesRevision;
    if (base > latest) throw new ConflictError(`The dub's lines are at revision ${latest}; base_revision ${base} is not one of them. Read the line again and edit it.`);
    if (line.revision > base) {
      throw new ConflictError(`Line ${line.id} has changed since revision ${base} (it is at revision ${line.revision}, by another window or client); read it again and edit it.`);
    }
  }

  /** The word timings of a line's current text: the voiced words when voiced at it, the original's while unchanged. */
  private async currentTimings(store: DubStore, dub: DubRecord, line: LineRecord) {
    const render = (await store.revision(dub.id, dub.currentRevision))?.renders[line.id];
    if (render && render.text === line.text && render.line_start === line.start && render.line_end === line.end && render.words.length) return render.words;
    if (line.text === line.originalText && line.words.length) return line.words;
    return null;
  }

  /** Splits a line in two (at a word, a time, or both); the second part gets a new id. Undoable. */
  async splitLine(dub: DubRecord, found: LineRecord, body: LineSplit, author: string): Promise<{ lines: DubLine[] }> {
    this.requireReady(dub);
    const entry = await this.dubEntries(dub);
    const at = new Date().toISOString();
    const ids = await this.editLines(dub, found.id, async (store, line, _lines, audit) => {
      const newId = await store.takeLineId(dub.id);
      const result = splitLine(line, await this.currentTimings(store, dub, line), { wordIndex: body.word_index, at: body.at }, newId, at);
      if (!result.ok) throw new InvalidInputError(result.issues);
      await store.putLines(dub.id, [result.first, result.second]);
      const seq = await store.insertEdit(dub.id, { op: 'split', author, before: [line], after: [result.first, result.second] });
      await audit.append(entry('dub.line_edited', { op: 'split', seq, new_line: result.second.id }, line.id));
      return [result.first.id, result.second.id];
    });
    return { lines: await Promise.all(ids.map((id) => this.lineJsonNow(dub.id, id))) };
  }

  /** Merges the next line into this one. Undoable. */
  async mergeLine(dub: DubRecord, found: LineRecord, nextId: number, author: string): Promise<DubLine> {
    this.requireReady(dub);
    const entry = await this.dubEntries(dub);
    await this.editLines(dub, found.id, async (store, line, lines, audit) => {
      const result = mergeLines(lines, line, nextId, new Date().toISOString());
      if (!result.ok) throw new InvalidInputError(result.issues);
      await store.deleteLines(dub.id, [result.removed.id]);
      await store.putLines(dub.id, [result.merged]);
      const seq = await store.insertEdit(dub.id, { op: 'merge', author, before: [line, result.removed], after: [result.merged] });
      await audit.append(entry('dub.line_edited', { op: 'merge', seq, merged_line: result.removed.id }, line.id));
    });
    return this.lineJsonNow(dub.id, found.id);
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
  async undoRedo(dub: DubRecord, direction: 'undo' | 'redo'): Promise<{ edit: LineEdit; lines: DubLine[] }> {
    this.requireReady(dub);
    const entry = await this.dubEntries(dub);
    const { seq, put } = await this.withTakesPruned(dub, async (store, audit) => {
      if (!(await store.lockDub(dub.id))) throw new NotFoundError('Dub not found.');
      const edits = await store.edits(dub.id);
      const edit = direction === 'undo' ? edits.filter((e) => !e.undone).at(-1) : edits.find((e) => e.undone);
      if (!edit) throw new ConflictError(direction === 'undo' ? 'There is no line edit to undo.' : 'There is no undone line edit to redo.');
      const [remove, put] = direction === 'undo' ? [edit.after, edit.before] : [edit.before, edit.after];
      const current = new Map((await store.lines(dub.id)).map((l) => [l.id, l]));
      // Every edit of the lines goes through this stack, so the lines it made are still as it left them.
      const same = (a: LineRecord, b: LineRecord | undefined) =>
        b !== undefined && a.text === b.text && a.start === b.start && a.end === b.end && a.voice === b.voice && a.speaker === b.speaker;
      if (!remove.every((l) => same(l, current.get(l.id)))) {
        throw new ConflictError(`The lines of edit ${edit.seq} have changed since; it cannot be ${direction === 'undo' ? 'undone' : 'redone'}.`);
      }
      await store.deleteLines(dub.id, remove.map((l) => l.id));
      await store.putLines(dub.id, put.map((l) => ({ ...l, updatedAt: new Date().toISOString() })));
      await store.setEditUndone(dub.id, edit.seq, direction === 'undo');
      await audit.append(entry('dub.line_edited', { op: direction, seq: edit.seq, lines: put.map((l) => l.id) }));
      return { seq: edit.seq, put };
    });
    const after = (await this.store.edits(dub.id)).find((e) => e.seq === seq)!;
    return { edit: this.editJson(after), lines: await Promise.all(put.map((l) => this.lineJsonNow(dub.id, l.id))) };
  }

  async addNote(dub: DubRecord, line: LineRecord, text: string, author: string): Promise<LineNote> {
    const note = { id: crypto.randomUUID(), lineId: line.id, author, text, createdAt: new Date().toISOString() };
    const entry = (await this.dubEntries(dub))('dub.note_added', { note: note.id }, line.id);
    await this.store.transaction(async (store, _jobs, audit) => {
      await store.insertNote(dub.id, note);
      await audit.append(entry);
    });
    return { id: note.id, line_id: note.lineId, author: note.author, created_at: note.createdAt, text: note.text };
  }

  /** A line's notes: its own, and those of the lines merged into it. */
  async lineNotes(dub: DubRecord, line: LineRecord): Promise<LineNote[]> {
    return this.notesOf(line, await this.store.notes(dub.id));
  }

  // ---- exports ----

  /** What the dub's exports read: its lines against the current revision, and the regions its revoices wrote. */
  async exportInput(
    dub: DubRecord,
    media: DubExportInput['media'],
    speakerNames: Record<string, string>,
  ): Promise<{ input: DubExportInput; revision: RevisionRecord; regions: Array<{ start: number; end: number }> }> {
    this.requireReady(dub);
    const revision = (await this.store.revision(dub.id, dub.currentRevision))!;
    // Each line ends where the dub's voice of it ends (a reading that borrowed the quiet after its line runs past `end`).
    const lines = (await this.lines(dub)).map((l) => ({ ...l, end: cueOut(l), revoiced: revision.renders[l.id] !== undefined }));
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

  async requireRevision(dub: DubRecord, raw: string): Promise<RevisionRecord> {
    const number = /^\d{1,9}$/.test(raw) ? Number(raw) : NaN;
    const revision = Number.isFinite(number) ? await this.store.revision(dub.id, number) : null;
    if (!revision) throw new NotFoundError('Revision not found.');
    return revision;
  }

  /** The revision's WAV in the blob store. */
  revisionKey(dub: DubRecord, revision: RevisionRecord): string {
    return dubKeys.revision(dub.sessionId, dub.id, revision.fileName);
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
      take_id: revision.takeId ?? null,
      lines_revoiced: revision.linesRevoiced,
      current: revision.number === dub.currentRevision,
      created_at: revision.createdAt,
      audio: this.audioAddress(dub, revision.number, baseUrl),
    };
  }

  /** Makes an earlier (or later) revision the current one again; the others stay. */
  async restore(dub: DubRecord, revision: RevisionRecord): Promise<DubRecord> {
    await this.store.transaction(async (store) => {
      if (!(await store.lockDub(dub.id))) throw new NotFoundError('Dub not found.');
      const active = await store.activeRevoice(dub.id);
      if (active) throw new ConflictError(`A revoice is running (${active.id}); restore once it has finished.`);
      await store.updateDub(dub.id, { currentRevision: revision.number });
    });
    return (await this.store.dubById(dub.id))!;
  }

  // ---- revoice ----

  /** The lines a revoice of the current revision would voice, frozen as they are now. */
  async plan(dub: DubRecord, store: DubStore = this.store): Promise<PlannedLine[]> {
    const lines = await store.lines(dub.id);
    const renders = (await store.revision(dub.id, dub.currentRevision))?.renders ?? {};
    const duration = dub.frames / dub.sampleRate;
    const planned: PlannedLine[] = [];
    lines.forEach((line, i) => {
      const voice = this.effectiveVoice(dub, line);
      const guide = effectiveGuide(dub, line);
      if (!lineState(line, voice, renders[line.id], coveredByOther(line, renders), guide).needsRevoice) return;
      if (voice === null) throw new ConflictError('No voice engine is installed, so no line can be voiced. Install festival and festvox-us-slt-hts (or see GET /v1/audio/models).');
      const found = this.deps.voices.lookupRef(voice);
      if (!found.ok) throw new ConflictError(`Line ${line.id} cannot be voiced: ${found.message}`);
      planned.push(plannedLine(lines, i, voice, line.speed, duration, guide));
    });
    return planned;
  }

  /**
   * Starts a revoice of every line that needs one, or returns the one already running. Null when no line
   * needs voicing (a no-op: no revision is written).
   */
  async startRevoice(dub: DubRecord): Promise<RevoiceRecord | null> {
    if (dub.status !== 'ready') throw new ConflictError(`The dub's lines are not ready (status: ${dub.status}).`);
    const entry = (await this.dubEntries(dub))('dub.revoiced', {});
    const id = await this.store.transaction(async (store, jobs, audit) => {
      // The dub is held, so two requests (or two API nodes) never start two revoices of it.
      if (!(await store.lockDub(dub.id))) throw new NotFoundError('Dub not found.');
      const active = await store.activeRevoice(dub.id);
      if (active) return active.id;
      const plan = await this.plan(dub, store);
      if (plan.length === 0) return null;
      const id = crypto.randomUUID();
      const jobId = await this.deps.jobs.enqueue(DUB_REVOICE_JOB, dub.sessionId, { revoice_id: id, dub_id: dub.id }, jobs);
      await store.insertRevoice({ id, dubId: dub.id, jobId, baseRevision: dub.currentRevision, plan });
      await audit.append({ ...entry, detail: { ...entry.detail, revoice: id, lines: plan.length, base_revision: dub.currentRevision } });
      return id;
    });
    return id === null ? null : (await this.store.revoice(id))!;
  }

  async requireRevoice(dub: DubRecord, id: string): Promise<RevoiceRecord> {
    const revoice = z.uuid().safeParse(id).success ? await this.store.revoice(id) : null;
    if (!revoice || revoice.dubId !== dub.id) throw new NotFoundError('Revoice not found.');
    return revoice;
  }

  /** Resolves when the revoice's job settles, or after `seconds`. */
  async waitFor(revoice: RevoiceRecord, seconds: number): Promise<void> {
    if (seconds <= 0) return;
    await this.deps.jobs.settled(revoice.jobId, seconds * 1000);
  }

  async revoiceJson(dub: DubRecord, revoice: RevoiceRecord, baseUrl: string): Promise<Revoice> {
    const job = await this.deps.jobs.get(revoice.jobId);
    const checkpoints = new Map((await this.store.checkpoints(revoice.id)).map((c) => [c.lineId, c]));
    const revision = revoice.revision !== null ? await this.store.revision(dub.id, revoice.revision) : null;
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
  async noOpJson(dub: DubRecord, baseUrl: string): Promise<Revoice> {
    const current = (await this.store.revision(dub.id, dub.currentRevision))!;
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
