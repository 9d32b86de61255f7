import fs from 'node:fs';
import path from 'node:path';
import type { BlobStore } from '../storage/blobs/blob-store';
import type { AdaptationRecording, AdaptationState, AdaptationStore, AdaptationSummary, StoredAdaptation } from '../storage/adaptation-store';
import { AdaptationCache, adaptationKeys, stateKeys, sweepAdaptation, type HeldCopies } from './adaptation-files';
import type { PocketSphinxModel } from '../speech/recognition/pocketsphinx/model';
import type { AdaptationSettings } from './adaptation-settings';
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
 * Where it lives (any worker of a team adapts a speaker further, any worker decodes with the result): each
 * speaker's state in the database (storage/adaptation-store.ts: which recordings' statistics are kept, the current
 * transform and means, the summary the API shows), the files themselves on the blob store under keys that never
 * change content (adaptation-files.ts), read through this node's local copies. A desktop folder's files from
 * before are moved there at start (legacy-adaptation.ts).
 *
 * Corrected speech can afford more parameters than one global transform: where a speaker has at least
 * `minSeconds` of it, the model's means are also re-estimated by MAP from the corrected statistics alone,
 * starting from the MLLR-moved means (MLLR, then MAP: the textbook order), into `means` beside the transform.
 * Decoders then load those means (`-mean`) instead of applying the transform: the Gaussians the corrections
 * reached move towards the speaker's true sounds, the rest keep the transform's move. Without corrected
 * speech nothing changes (the recognizer's own words are too often wrong to teach single Gaussians).
 */
export type { AdaptationSettings } from './adaptation-settings';

export type { AdaptationSummary };

/** A chunk of a speaker's speech, and whether its words are the editor's (corrected) or the recognizer's. */
export type AdaptationChunk = SpeakerChunk & { corrected?: boolean };

/** Suffix of a recording's statistics from its corrected lines (kept beside those of its recognized lines). */
const CORRECTED = '.corrected';

/** Too little of one speaker in one recording to be worth a Baum-Welch run. */
export const MIN_RECORDING_SECONDS = 1;

/**
 * The kept statistics within the bounds; the rest are to be removed. Corrected lines' statistics come first
 * (supervision is worth more than the recognizer's guesses, which are wrong about one word in three), then
 * the recognized ones; newest first within each. The seconds bound holds for all; the count bound for the
 * recognized ones only: MAP moves each Gaussian by how much corrected speech it has seen, so every corrected
 * second within the bound teaches (a count would drop 10 of 30 short corrected recordings, a third of them).
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
  let recognized = 0;
  for (const r of sorted) {
    if (kept.length > 0 && (seconds + r.seconds > settings.maxSeconds || (!r.corrected && recognized >= settings.maxRecordings))) break;
    kept.push(r);
    seconds += r.seconds;
    if (!r.corrected) recognized++;
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

/** A speaker's decoding files on this node: the transform, and the MAP means when there are some. */
export interface DecodingFiles {
  transform: string;
  means?: string;
}

const EMPTY: AdaptationState = { recordings: [], transform: null, means: null, summary: null };

export class SpeakerAdaptation {
  private prepared: Promise<string> | null = null;
  private dictionary: Set<string> | null = null;
  private readonly cache: AdaptationCache;

  constructor(
    readonly settings: AdaptationSettings,
    private readonly deps: {
      model: PocketSphinxModel;
      /** null when sphinxtrain is not installed: nothing is estimated. */
      tools: SphinxtrainTools | null;
      /** Each speaker's state (which keys are current, the summary) and the per-speaker lock. */
      store: AdaptationStore;
      /** Where the statistics, transforms and means are kept (adaptation-files.ts). */
      blobs: BlobStore;
      /** This node's own folder: the expanded training model (built once) and pronunciation lexicons. */
      cacheDir: string;
      /** In this node's scratch (emptied at start-up): local copies of stored objects and estimates' working files. */
      scratchDir: string;
      /** espeak-ng's program, for names typed in corrections (default `espeak-ng`). */
      espeak?: string;
      log?: (line: string) => void;
    },
  ) {
    this.cache = new AdaptationCache(deps.blobs, path.join(deps.scratchDir, 'copies'));
  }

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

  private checkIds(projectId: string, speakerId: string): void {
    if (!ID.test(projectId) || !ID.test(speakerId)) throw new Error('adaptation: bad id');
  }

  /**
   * Local files of the project's speakers' current transforms (and MAP means: a decoder given these uses no
   * transform), by speaker id; none when adaptation is off. Whichever node estimated them, this node decodes
   * with the newest. Held until `release` (a newer estimate meanwhile does not take them away).
   */
  async decoding(projectId: string): Promise<{ speakers: Map<string, DecodingFiles>; release(): void }> {
    const speakers = new Map<string, DecodingFiles>();
    const holds: HeldCopies[] = [];
    const release = () => holds.forEach((h) => h.release());
    try {
      if (this.settings.enabled) {
        for (const stored of await this.deps.store.forProject(projectId)) {
          const held = await this.holdDecoding(stored);
          if (!held) continue;
          holds.push(held.copies);
          speakers.set(stored.speakerId, held.files);
        }
      }
    } catch (error) {
      release();
      throw error;
    }
    return { speakers, release };
  }

  /** Copies of one speaker's decoding files; read again once when an estimate superseded them meanwhile. */
  private async holdDecoding(stored: StoredAdaptation): Promise<{ files: DecodingFiles; copies: HeldCopies } | null> {
    for (let attempt = 0; attempt < 2; attempt++) {
      const { transform, means } = stored.state;
      if (!transform) return null;
      try {
        const copies = await this.cache.hold(means ? [transform, means] : [transform]);
        return { files: { transform: this.cache.path(transform), ...(means ? { means: this.cache.path(means) } : {}) }, copies };
      } catch (error) {
        const again = await this.deps.store.get(stored.speakerId);
        if (attempt > 0 || !again || again.version === stored.version) {
          this.deps.log?.(`adaptation: speaker ${stored.speakerId} decoded without adaptation: ${(error as Error).message}`);
          return null;
        }
        stored = again;
      }
    }
    return null;
  }

  /** Each project speaker's summary (speakers without a transform have none). */
  async summaries(projectId: string): Promise<Map<string, AdaptationSummary>> {
    const out = new Map<string, AdaptationSummary>();
    for (const { speakerId, state } of await this.deps.store.forProject(projectId)) if (state.summary) out.set(speakerId, state.summary);
    return out;
  }

  async summary(projectId: string, speakerId: string): Promise<AdaptationSummary | null> {
    this.checkIds(projectId, speakerId);
    return (await this.deps.store.get(speakerId))?.state.summary ?? null;
  }

  /** Whether statistics of this recording are kept for the speaker (recognized or corrected lines). */
  async hasRecording(projectId: string, speakerId: string, sessionId: string): Promise<boolean> {
    if (!ID.test(sessionId)) return false;
    this.checkIds(projectId, speakerId);
    const stored = await this.deps.store.get(speakerId);
    return Boolean(stored?.state.recordings.some((r) => r.id === sessionId || r.id === `${sessionId}${CORRECTED}`));
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
    fs.mkdirSync(this.deps.cacheDir, { recursive: true });
    return scriptLexicon(this.deps.model.dict, words, { tempDir: this.deps.cacheDir, signal, ...(this.deps.espeak ? { espeak: this.deps.espeak } : {}) });
  }

  /**
   * Adds one recording's speech of a speaker (chunks: 16-bit PCM and dictionary words; corrected ones carry
   * the editor's words) and solves the speaker's transform anew. The recording's earlier statistics are
   * replaced (a recording transcribed again, or corrected since). `dictionary`: a dictionary file with the
   * words the model's lacks (typed names) pronounced; the model's by default. Returns the new summary, or
   * null when no transform results (too little speech so far); throws when a tool fails (the previous
   * transform, if any, stays). One estimate per speaker at a time, across the team's nodes (the store's lock):
   * each starts from the state the previous one committed.
   */
  async addRecording(
    projectId: string,
    speakerId: string,
    sessionId: string,
    chunks: readonly AdaptationChunk[],
    options: { dictionary?: string | null } = {},
  ): Promise<AdaptationSummary | null> {
    const tools = this.deps.tools;
    if (!this.settings.enabled || !tools) return null;
    if (!ID.test(sessionId)) throw new Error('adaptation: bad session id');
    this.checkIds(projectId, speakerId);
    const hmm = await this.trainingModel();
    const { summary, superseded } = await this.deps.store.exclusive(speakerId, (locked) =>
      // Queued after a recording: below the decoders of whatever transcription people wait for.
      this.estimate(locked, { tools: { ...tools, deferred: true }, hmm, projectId, speakerId, sessionId, chunks, dictionary: options.dictionary ?? null }),
    );
    // Once the new state is committed: a reader that read the old one just before reads again (holdDecoding).
    await this.removeObjects(superseded);
    return summary;
  }

  private async estimate(
    locked: AdaptationStore,
    job: { tools: SphinxtrainTools; hmm: string; projectId: string; speakerId: string; sessionId: string; chunks: readonly AdaptationChunk[]; dictionary: string | null },
  ): Promise<{ summary: AdaptationSummary | null; superseded: string[] }> {
    const { tools, hmm, projectId, speakerId, sessionId, chunks, dictionary } = job;
    const before = await locked.get(speakerId);
    const old = before?.state ?? EMPTY;
    const version = (before?.version ?? 0) + 1;
    const base = adaptationKeys.estimate(projectId, speakerId, version);
    // What the estimate reads, as local files: the kept statistics and the current transform (bw aligns along it).
    const { copies, readable, current } = await this.holdForEstimate(old, speakerId);
    fs.mkdirSync(this.deps.scratchDir, { recursive: true, mode: 0o700 });
    const work = fs.mkdtempSync(path.join(this.deps.scratchDir, 'work-'));
    const stored: string[] = [];
    const store = async (key: string, file: string) => {
      await this.deps.blobs.putFile(key, file);
      stored.push(key);
      this.cache.adopt(key, file);
    };
    try {
      const model = dictionary ? { ...this.deps.model, dict: dictionary } : this.deps.model;
      // Both parts are collected before either replaces what was kept, so a failing tool leaves the recording as it was.
      const fresh: AdaptationRecording[] = [];
      const freshDirs = new Map<string, string>();
      for (const corrected of [false, true]) {
        const own = chunks.filter((c) => Boolean(c.corrected) === corrected);
        const acc = path.join(work, corrected ? 'acc-corrected' : 'acc');
        fs.mkdirSync(acc);
        const seconds = own.length ? await accumulateMllrStats(model, tools, hmm, own, acc, work, current) : 0;
        if (seconds <= 0) continue;
        const id = corrected ? `${sessionId}${CORRECTED}` : sessionId;
        fresh.push({ id, seconds, at: new Date().toISOString(), ...(corrected ? { corrected: true } : {}), prefix: `${base}rec/${id}/`, files: fs.readdirSync(acc) });
        freshDirs.set(id, acc);
      }
      const others = readable.filter((r) => r.id !== sessionId && r.id !== `${sessionId}${CORRECTED}`);
      const { kept } = keptRecordings([...others, ...fresh], this.settings);
      for (const r of kept.filter((k) => freshDirs.has(k.id))) for (const f of r.files) await store(r.prefix + f, path.join(freshDirs.get(r.id)!, f));
      const dirOf = (r: AdaptationRecording) => freshDirs.get(r.id) ?? this.cache.path(r.prefix);
      const total = kept.reduce((a, r) => a + r.seconds, 0);
      let state: AdaptationState = { recordings: kept, transform: null, means: null, summary: null };
      let summary: AdaptationSummary | null = null;
      if (total >= this.settings.minSeconds) {
        const out = path.join(work, 'transform.mllr');
        const distance = await solveMllr(tools, hmm, kept.map(dirOf), out, path.join(work, 'mllr.log'));
        await store(`${base}transform.mllr`, out);
        const corrected = kept.filter((r) => r.corrected).reduce((a, r) => a + r.seconds, 0);
        let means: string | null = null;
        let mapped: string;
        try {
          const result = await this.mapMeans(hmm, work, out, kept.filter((r) => r.corrected).map(dirOf), corrected);
          mapped = result.note;
          if (result.file) {
            means = `${base}means`;
            await store(means, result.file);
          }
        } catch (error) {
          // The transform just solved stands alone: older means would pair an old estimate with the new transform.
          mapped = `; no MAP means (${(error as Error).message.slice(0, 200)})`;
        }
        summary = {
          recordings: new Set(kept.map((r) => r.id.replace(CORRECTED, ''))).size,
          seconds: Math.round(total * 10) / 10,
          corrected_seconds: Math.round(corrected * 10) / 10,
          map_means: means !== null,
          updated_at: new Date().toISOString(),
        };
        state = { recordings: kept, transform: `${base}transform.mllr`, means, summary };
        this.deps.log?.(
          `adaptation: speaker ${speakerId} from ${summary.recordings} recordings, ${total.toFixed(1)} s (${corrected.toFixed(1)} s corrected) (max |A−I| ${distance.matrix.toFixed(3)}, max |b| ${distance.offset.toFixed(3)})${mapped} (version ${version})`,
        );
      }
      await locked.save({ speakerId, projectId, version, state });
      const named = new Set(stateKeys(state));
      return { summary, superseded: stateKeys(old).filter((k) => !named.has(k)) };
    } catch (error) {
      // Nothing names what this estimate stored: it goes now (the sweep would take it after the grace).
      await this.removeObjects(stored).catch(() => undefined);
      throw error;
    } finally {
      copies.forEach((c) => c.release());
      fs.rmSync(work, { recursive: true, force: true });
    }
  }

  /**
   * Local copies of what an estimate starts from. A recording whose statistics cannot be read (gone from the
   * store) is left out, and a missing transform aligns unadapted, rather than failing every later estimate.
   */
  private async holdForEstimate(old: AdaptationState, speakerId: string): Promise<{ copies: HeldCopies[]; readable: AdaptationRecording[]; current: string | null }> {
    const copies: HeldCopies[] = [];
    const readable: AdaptationRecording[] = [];
    const tryHold = async (keys: string[], what: string) => {
      try {
        copies.push(await this.cache.hold(keys));
        return true;
      } catch (error) {
        this.deps.log?.(`adaptation: speaker ${speakerId}: ${what} left out: ${(error as Error).message}`);
        return false;
      }
    };
    for (const r of old.recordings) if (await tryHold(r.files.map((f) => r.prefix + f), `the statistics of ${r.id}`)) readable.push(r);
    const wanted = this.settings.alignAdapted ? old.transform : null;
    const current = wanted && (await tryHold([wanted], 'the current transform')) ? this.cache.path(wanted) : null;
    return { copies, readable, current };
  }

  /**
   * MAP means from the corrected statistics over the MLLR-moved prior, or none when there is too little corrected
   * speech (or MAP is off). Returns the means file (in `work`) and a note for the log.
   */
  private async mapMeans(hmm: string, work: string, transform: string, correctedDirs: string[], correctedSeconds: number): Promise<{ file: string | null; note: string }> {
    const tools = { ...this.deps.tools!, deferred: true };
    if (this.settings.mapFromCorrections === false || correctedSeconds < this.settings.minSeconds || correctedDirs.length === 0) return { file: null, note: '' };
    const prior = path.join(work, 'prior.means');
    const adapted = path.join(work, 'map.means');
    await transformMeans(tools, hmm, transform, prior, path.join(work, 'mllr_transform.log'));
    await mapAdaptMeans(tools, hmm, prior, correctedDirs, adapted, path.join(work, 'map_adapt.log'));
    // Refused unless it is a whole, finite means file of this model (the decoder would fail or decode garbage).
    const base = readGaussianFile(fs.readFileSync(path.join(hmm, 'means')));
    const result = readGaussianFile(fs.readFileSync(adapted));
    if (!sameShape(base, result)) throw new Error('adaptation: map_adapt wrote means of another shape');
    const shift = meanShift(readGaussianFile(fs.readFileSync(prior)), result, readGaussianFile(fs.readFileSync(path.join(hmm, 'variances'))));
    return {
      file: adapted,
      note: `; MAP means from ${correctedSeconds.toFixed(1)} s corrected (${(100 * shift.movedShare).toFixed(0)} % of Gaussians moved, at most ${shift.maxSigmas.toFixed(2)} σ)`,
    };
  }

  /** Deletes objects no state names any more (and this node's copies of them, once unused). */
  private async removeObjects(keys: readonly string[]): Promise<void> {
    this.cache.forget(keys);
    for (const key of keys) await this.deps.blobs.delete(key);
    // An estimate's folder none of whose objects are named any more goes whole (a folder store's empty folders with it).
    const tags = new Set(keys.map((k) => k.split('/').slice(0, 4).join('/') + '/'));
    for (const tag of tags) if ((await this.deps.blobs.list(tag)).length === 0) await this.deps.blobs.deletePrefix(tag);
  }

  /**
   * Removes what the project's speakers that no longer exist (merged or deleted) kept, and a live speaker's
   * objects no state names once older than `graceMs` (adaptation-files.ts sweepAdaptation).
   */
  sweep(projectId: string, liveSpeakers: () => Promise<ReadonlySet<string>>, graceMs: number): Promise<number> {
    if (!ID.test(projectId)) return Promise.resolve(0);
    return sweepAdaptation(this.deps.blobs, this.deps.store, liveSpeakers, { projectId, graceMs });
  }

  /** Removes a whole project's adaptation objects (its rows go with its speakers). */
  async removeProject(projectId: string): Promise<void> {
    if (ID.test(projectId)) await this.deps.blobs.deletePrefix(adaptationKeys.project(projectId));
  }
}
