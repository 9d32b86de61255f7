import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../storage/files';
import type { PocketSphinxModel } from '../speech/recognition/pocketsphinx/model';
import { createBatchMllrEstimator, type BatchEstimator } from '../speech/recognition/pocketsphinx/batch-mllr';
import { dictionaryWords } from '../speech/recognition/pocketsphinx/vocabulary';
import { scriptLexicon, type ScriptLexicon } from '../speech/alignment/script-lexicon';
import { meanShift, readGaussianFile, sameShape } from '../speech/recognition/pocketsphinx/gaussian-file';
import {
  accumulateMllrStats,
  mapAdaptMeans,
  prepareTrainingModel,
  solveMllr,
  transformMeans,
  type SpeakerChunk,
  type SphinxtrainTools,
} from '../speech/recognition/pocketsphinx/adaptation';

/**
 * Online MLLR adaptation per project speaker (bench/adaptation, "online"): after a recording, Baum-Welch
 * statistics of each known speaker's speech along the first pass's words are kept (not the audio), and
 * one transform is solved from the speaker's kept statistics; the project's later recordings decode that
 * speaker's chunks with it. Nothing is decoded twice.
 *
 * Lines the editor corrected (or aligned a script to) are supervision: their statistics are collected along
 * the editor's words, kept apart from the recognized lines' (`rec/<session>.corrected/`), and kept in
 * preference to them when the bounds leave out some (keptRecordings).
 *
 * Files, under `<data>/adaptation/<project>/<speaker>/`: `rec/<session>/` (bw's sums) with
 * `rec/<session>.json` (seconds, when), `transform.mllr` and `state.json` (what the API shows), the last
 * two written atomically, so a decoder reading the transform never sees half of one.
 *
 * Corrected speech can afford more parameters than one global transform: where a speaker has at least
 * `minSeconds` of it, the model's means are also re-estimated by MAP from the corrected statistics alone,
 * starting from the MLLR-moved means (MLLR, then MAP: the textbook order), into `means` (written atomically).
 * Decoders then load those means (`-mean`) instead of applying the transform: the Gaussians the corrections
 * reached move towards the speaker's true sounds, the rest keep the transform's move. Without corrected
 * speech nothing changes (the recognizer's own words are too often wrong to teach single Gaussians).
 */
export interface AdaptationSettings {
  /** Off: no statistics are kept and no chunk is decoded adapted. */
  enabled: boolean;
  /** Seconds of a speaker's aligned speech (over the kept recordings) before a transform is solved. */
  minSeconds: number;
  /** The newest recordings are kept while their seconds stay under this (at least one). */
  maxSeconds: number;
  maxRecordings: number;
  /**
   * Collect a new recording's statistics along the speaker's current transform (bw -mllrmat), so its
   * alignment comes from the adapted model; otherwise from the speaker-independent one.
   */
  alignAdapted: boolean;
  /**
   * Also adapt within each recording: a voice's later chunks decoded with a transform fitted to its earlier
   * ones in the same recording (transcription/request-adaptation.ts), project or not.
   */
  withinRecording: boolean;
  /**
   * Where a speaker has corrected speech (issue 31), also re-estimate the model's means from it by MAP on top of
   * the MLLR transform (`means` beside the transform; decoders load it with `-mean`). Absent: on.
   */
  mapFromCorrections?: boolean;
}

export interface AdaptationSummary {
  recordings: number;
  seconds: number;
  /** Of `seconds`, those of lines the editor corrected or aligned a script to (issue 31). */
  corrected_seconds: number;
  /** Whether the speaker's Gaussian means were also re-estimated (MAP) from their corrected speech (issue 31). */
  map_means: boolean;
  updated_at: string;
}

interface RecordingMeta {
  seconds: number;
  at: string;
  /** Statistics along the editor's words (corrected lines), not the recognizer's. */
  corrected?: boolean;
}

/** A chunk of a speaker's speech, and whether its words are the editor's (corrected) or the recognizer's. */
export type AdaptationChunk = SpeakerChunk & { corrected?: boolean };

/** Suffix of a recording's statistics from its corrected lines (kept beside those of its recognized lines). */
const CORRECTED = '.corrected';

/** Too little of one speaker in one recording to be worth a Baum-Welch run. */
export const MIN_RECORDING_SECONDS = 1;

/**
 * The kept statistics within the bounds; the rest are to be removed. Corrected lines' statistics come first
 * (supervision is worth more than the recognizer's guesses, which are wrong about one word in three), then
 * the recognized ones; newest first within each.
 */
export function keptRecordings<T extends { seconds: number; at: string; corrected?: boolean }>(
  recordings: readonly T[],
  settings: Pick<AdaptationSettings, 'maxSeconds' | 'maxRecordings'>,
): { kept: T[]; dropped: T[] } {
  const sorted = [...recordings].sort((a, b) =>
    Boolean(a.corrected) !== Boolean(b.corrected) ? (a.corrected ? -1 : 1) : a.at < b.at ? 1 : a.at > b.at ? -1 : 0,
  );
  const kept: T[] = [];
  let seconds = 0;
  for (const r of sorted) {
    if (kept.length > 0 && (kept.length >= settings.maxRecordings || seconds + r.seconds > settings.maxSeconds)) break;
    kept.push(r);
    seconds += r.seconds;
  }
  return { kept, dropped: sorted.slice(kept.length) };
}

/**
 * A written transcript word as the dictionary spells it (`Hello,` → `hello`), or null if it has none
 * there (the whole line is then left out: Baum-Welch needs every word's phones).
 */
export function dictionaryWord(word: string, dictionary: ReadonlySet<string>): string | null {
  const bare = bareWord(word);
  return bare && dictionary.has(bare) ? bare : null;
}

/** A written word as a dictionary would spell it: lower case, without the punctuation around it. */
export function bareWord(word: string): string {
  return word.toLowerCase().replace(/’/g, "'").replace(/^[^a-z0-9']+|[^a-z0-9']+$/g, '');
}

/**
 * The pieces of a written word as a dictionary would look them up: the bare word, or, when the dictionary lacks it,
 * the word without quote marks around it (`debtors'`) or its parts between hyphens and periods (`picture-books`,
 * `a.m.`). An editor's typed words are written this way far more often than the recognizer's.
 */
export function wordPieces(word: string, dictionary: ReadonlySet<string>): string[] {
  const bare = bareWord(word);
  if (!bare || dictionary.has(bare)) return bare ? [bare] : [];
  const unquoted = bare.replace(/^'+|'+$/g, '');
  if (dictionary.has(unquoted)) return [unquoted];
  return unquoted.split(/[-.]+/).map((p) => p.replace(/^'+|'+$/g, '')).filter(Boolean);
}

/**
 * A line's words as the dictionary spells them, or null when one has no entry there: Baum-Welch needs every
 * word's phones, so such a line is left out whole.
 */
export function alignableWords(words: ReadonlyArray<{ word: string }>, dictionary: ReadonlySet<string>): string[] | null {
  const spelled: string[] = [];
  for (const w of words) {
    const pieces = wordPieces(w.word, dictionary);
    if (pieces.some((p) => !dictionary.has(p))) return null;
    spelled.push(...pieces);
  }
  return spelled;
}

const ID = /^[0-9a-f-]{36}$/;

export class SpeakerAdaptation {
  private prepared: Promise<string> | null = null;
  private dictionary: Set<string> | null = null;
  /** One estimate at a time: two recordings of one speaker must not solve into the same files at once. */
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    readonly root: string,
    readonly settings: AdaptationSettings,
    private readonly deps: {
      model: PocketSphinxModel;
      /** null when sphinxtrain is not installed: nothing is estimated. */
      tools: SphinxtrainTools | null;
      /** Where the expanded training model is built (once). */
      cacheDir: string;
      /** espeak-ng's program, for names typed in corrections (default `espeak-ng`). */
      espeak?: string;
      log?: (line: string) => void;
    },
  ) {}

  /** Whether new statistics can be estimated here (switched on, and the tools installed). */
  get estimating(): boolean {
    return this.settings.enabled && this.deps.tools !== null;
  }

  /** The expanded training model, built once (the first estimate's job). */
  private trainingModel(): Promise<string> {
    const tools = this.deps.tools;
    if (!tools) return Promise.reject(new Error('adaptation: sphinxtrain is not installed'));
    this.prepared ??= prepareTrainingModel(this.deps.model, tools, this.deps.cacheDir);
    return this.prepared.catch((error: unknown) => {
      this.prepared = null;
      throw error;
    });
  }

  /**
   * An estimator for one recording's voices (working files in `workDir`, removed at its close), or null when
   * adaptation within a recording is off or cannot run here.
   */
  recordingEstimator(workDir: string): BatchEstimator | null {
    const tools = this.deps.tools;
    if (!this.settings.enabled || !this.settings.withinRecording || !tools) return null;
    return createBatchMllrEstimator({
      model: this.deps.model,
      tools,
      trainingModel: () => this.trainingModel(),
      workDir,
      minSeconds: this.settings.minSeconds,
    });
  }

  private speakerDir(projectId: string, speakerId: string): string {
    if (!ID.test(projectId) || !ID.test(speakerId)) throw new Error('adaptation: bad id');
    return path.join(this.root, projectId, speakerId);
  }

  /** The speaker's current transform file, or null (none yet, or adaptation off). */
  transform(projectId: string, speakerId: string): string | null {
    if (!this.settings.enabled) return null;
    const file = path.join(this.speakerDir(projectId, speakerId), 'transform.mllr');
    return fs.existsSync(file) ? file : null;
  }

  /**
   * The speaker's MAP-adapted means (the MLLR transform already in them), or null: none yet (too little
   * corrected speech), or adaptation off. A decoder given these uses no transform.
   */
  means(projectId: string, speakerId: string): string | null {
    if (!this.settings.enabled) return null;
    const file = path.join(this.speakerDir(projectId, speakerId), 'means');
    return fs.existsSync(file) ? file : null;
  }

  summary(projectId: string, speakerId: string): AdaptationSummary | null {
    try {
      const state = JSON.parse(fs.readFileSync(path.join(this.speakerDir(projectId, speakerId), 'state.json'), 'utf8')) as AdaptationSummary;
      // A state written before corrections were told apart had none; whether MAP means exist is the file's say.
      return { ...state, corrected_seconds: state.corrected_seconds ?? 0, map_means: fs.existsSync(path.join(this.speakerDir(projectId, speakerId), 'means')) };
    } catch {
      return null;
    }
  }

  /** Whether statistics of this recording are kept for the speaker (recognized or corrected lines). */
  hasRecording(projectId: string, speakerId: string, sessionId: string): boolean {
    if (!ID.test(sessionId)) return false;
    const recDir = path.join(this.speakerDir(projectId, speakerId), 'rec');
    return fs.existsSync(path.join(recDir, `${sessionId}.json`)) || fs.existsSync(path.join(recDir, `${sessionId}${CORRECTED}.json`));
  }

  /** Lower-case words of the recognizer's dictionary, read once. */
  words(): Set<string> {
    this.dictionary ??= new Set([...dictionaryWords(fs.readFileSync(this.deps.model.dict, 'utf8'))].map((w) => w.toLowerCase()));
    return this.dictionary;
  }

  /**
   * A copy of the model's dictionary with `words` (which it lacks) pronounced by espeak-ng, as the project
   * vocabulary and script alignment pronounce them; `dictionary` is null when none could be (no espeak-ng).
   */
  pronounce(words: readonly string[], signal?: AbortSignal): Promise<ScriptLexicon> {
    if (words.length === 0) return Promise.resolve({ dictionary: null, added: [], missing: [], dispose: () => {} });
    fs.mkdirSync(this.root, { recursive: true });
    return scriptLexicon(this.deps.model.dict, words, { tempDir: this.root, signal, ...(this.deps.espeak ? { espeak: this.deps.espeak } : {}) });
  }

  /**
   * Adds one recording's speech of a speaker (chunks: 16-bit PCM and dictionary words; corrected ones carry
   * the editor's words) and solves the speaker's transform anew. The recording's earlier statistics are
   * replaced (a recording transcribed again, or corrected since). `dictionary`: a dictionary file with the
   * words the model's lacks (typed names) pronounced; the model's by default. Returns the new summary, or
   * null when no transform results (too little speech so far); throws when a tool fails (the previous
   * transform, if any, stays).
   */
  addRecording(
    projectId: string,
    speakerId: string,
    sessionId: string,
    chunks: readonly AdaptationChunk[],
    options: { dictionary?: string | null } = {},
  ): Promise<AdaptationSummary | null> {
    const next = this.chain.then(() => this.add(projectId, speakerId, sessionId, chunks, options.dictionary ?? null));
    this.chain = next.catch(() => undefined);
    return next;
  }

  private async add(projectId: string, speakerId: string, sessionId: string, chunks: readonly AdaptationChunk[], dictionary: string | null): Promise<AdaptationSummary | null> {
    const tools = this.deps.tools;
    if (!this.settings.enabled || !tools) return null;
    if (!ID.test(sessionId)) throw new Error('adaptation: bad session id');
    const dir = this.speakerDir(projectId, speakerId);
    const recDir = path.join(dir, 'rec');
    fs.mkdirSync(recDir, { recursive: true });
    const hmm = await this.trainingModel();
    // Working files beside the kept ones (one rename away); a crash's leftovers go at the next estimate.
    for (const name of fs.readdirSync(dir)) if (name.startsWith('.work-')) fs.rmSync(path.join(dir, name), { recursive: true, force: true });
    const work = fs.mkdtempSync(path.join(dir, '.work-'));
    try {
      const current = this.settings.alignAdapted ? this.transform(projectId, speakerId) : null;
      const model = dictionary ? { ...this.deps.model, dict: dictionary } : this.deps.model;
      // Both parts are collected before either replaces what was kept, so a failing tool leaves the recording as it was.
      const parts: Array<{ id: string; acc: string; seconds: number; corrected: boolean }> = [];
      for (const corrected of [false, true]) {
        const own = chunks.filter((c) => Boolean(c.corrected) === corrected);
        const acc = path.join(work, corrected ? 'acc-corrected' : 'acc');
        fs.mkdirSync(acc);
        const seconds = own.length ? await accumulateMllrStats(model, tools, hmm, own, acc, work, current) : 0;
        parts.push({ id: corrected ? `${sessionId}${CORRECTED}` : sessionId, acc, seconds, corrected });
      }
      for (const part of parts) {
        const target = path.join(recDir, part.id);
        fs.rmSync(`${target}.json`, { force: true });
        fs.rmSync(target, { recursive: true, force: true });
        if (part.seconds <= 0) continue;
        fs.renameSync(part.acc, target);
        writeFileAtomic(`${target}.json`, JSON.stringify({ seconds: part.seconds, at: new Date().toISOString(), ...(part.corrected ? { corrected: true } : {}) } satisfies RecordingMeta));
      }
      const { kept, dropped } = keptRecordings(this.recordings(recDir), this.settings);
      for (const r of dropped) {
        fs.rmSync(path.join(recDir, r.id), { recursive: true, force: true });
        fs.rmSync(path.join(recDir, `${r.id}.json`), { force: true });
      }
      const total = kept.reduce((a, r) => a + r.seconds, 0);
      if (total < this.settings.minSeconds) {
        this.clearTransform(dir);
        return null;
      }
      const out = path.join(work, 'transform.mllr');
      const distance = await solveMllr(tools, hmm, kept.map((r) => path.join(recDir, r.id)), out, path.join(work, 'mllr.log'));
      writeFileAtomic(path.join(dir, 'transform.mllr'), fs.readFileSync(out));
      const corrected = kept.filter((r) => r.corrected).reduce((a, r) => a + r.seconds, 0);
      let mapped: string;
      try {
        mapped = await this.mapMeans(hmm, dir, work, out, kept.filter((r) => r.corrected).map((r) => path.join(recDir, r.id)), corrected);
      } catch (error) {
        // The transform just solved stands alone: older means would pair an old estimate with the new transform.
        fs.rmSync(path.join(dir, 'means'), { force: true });
        mapped = `; no MAP means (${(error as Error).message.slice(0, 200)})`;
      }
      const summary: AdaptationSummary = {
        recordings: new Set(kept.map((r) => r.id.replace(CORRECTED, ''))).size,
        seconds: Math.round(total * 10) / 10,
        corrected_seconds: Math.round(corrected * 10) / 10,
        map_means: fs.existsSync(path.join(dir, 'means')),
        updated_at: new Date().toISOString(),
      };
      writeFileAtomic(path.join(dir, 'state.json'), JSON.stringify(summary));
      this.deps.log?.(
        `adaptation: speaker ${speakerId} from ${summary.recordings} recordings, ${total.toFixed(1)} s (${corrected.toFixed(1)} s corrected) (max |A−I| ${distance.matrix.toFixed(3)}, max |b| ${distance.offset.toFixed(3)})${mapped}`,
      );
      return summary;
    } finally {
      fs.rmSync(work, { recursive: true, force: true });
    }
  }

  /**
   * MAP means from the corrected statistics over the MLLR-moved prior, or their removal when there is too
   * little corrected speech (or MAP is off). Returns a note for the log.
   */
  private async mapMeans(hmm: string, dir: string, work: string, transform: string, correctedDirs: string[], correctedSeconds: number): Promise<string> {
    const target = path.join(dir, 'means');
    const tools = this.deps.tools!;
    if (this.settings.mapFromCorrections === false || correctedSeconds < this.settings.minSeconds || correctedDirs.length === 0) {
      fs.rmSync(target, { force: true });
      return '';
    }
    const prior = path.join(work, 'prior.means');
    const adapted = path.join(work, 'map.means');
    await transformMeans(tools, hmm, transform, prior, path.join(work, 'mllr_transform.log'));
    await mapAdaptMeans(tools, hmm, prior, correctedDirs, adapted, path.join(work, 'map_adapt.log'));
    // Refused unless it is a whole, finite means file of this model (the decoder would fail or decode garbage).
    const base = readGaussianFile(fs.readFileSync(path.join(hmm, 'means')));
    const result = readGaussianFile(fs.readFileSync(adapted));
    if (!sameShape(base, result)) throw new Error('adaptation: map_adapt wrote means of another shape');
    const shift = meanShift(readGaussianFile(fs.readFileSync(prior)), result, readGaussianFile(fs.readFileSync(path.join(hmm, 'variances'))));
    writeFileAtomic(target, fs.readFileSync(adapted));
    return `; MAP means from ${correctedSeconds.toFixed(1)} s corrected (${(100 * shift.movedShare).toFixed(0)} % of Gaussians moved, at most ${shift.maxSigmas.toFixed(2)} σ)`;
  }

  private recordings(recDir: string): Array<RecordingMeta & { id: string }> {
    const out: Array<RecordingMeta & { id: string }> = [];
    for (const name of fs.readdirSync(recDir)) {
      if (!name.endsWith('.json') || name.startsWith('.')) continue;
      const id = name.slice(0, -5);
      try {
        const meta = JSON.parse(fs.readFileSync(path.join(recDir, name), 'utf8')) as RecordingMeta;
        if (fs.existsSync(path.join(recDir, id))) out.push({ ...meta, id });
      } catch {
        // A damaged note: its statistics are not used.
      }
    }
    return out;
  }

  private clearTransform(dir: string): void {
    fs.rmSync(path.join(dir, 'means'), { force: true });
    fs.rmSync(path.join(dir, 'transform.mllr'), { force: true });
    fs.rmSync(path.join(dir, 'state.json'), { force: true });
  }

  /** Removes the files of the project's speakers that no longer exist (merged or deleted). */
  sweep(projectId: string, liveSpeakerIds: ReadonlySet<string>): void {
    if (!ID.test(projectId)) return;
    const dir = path.join(this.root, projectId);
    if (!fs.existsSync(dir)) return;
    for (const name of fs.readdirSync(dir)) {
      if (!liveSpeakerIds.has(name)) fs.rmSync(path.join(dir, name), { recursive: true, force: true });
    }
  }

  /** Removes a whole project's adaptation files. */
  removeProject(projectId: string): void {
    if (ID.test(projectId)) fs.rmSync(path.join(this.root, projectId), { recursive: true, force: true });
  }
}
