import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../storage/files';
import type { PocketSphinxModel } from '../speech/recognition/pocketsphinx/model';
import { createBatchMllrEstimator, type BatchEstimator } from '../speech/recognition/pocketsphinx/batch-mllr';
import { dictionaryWords } from '../speech/recognition/pocketsphinx/vocabulary';
import {
  accumulateMllrStats,
  prepareTrainingModel,
  solveMllr,
  type SpeakerChunk,
  type SphinxtrainTools,
} from '../speech/recognition/pocketsphinx/adaptation';

/**
 * Online MLLR adaptation per project speaker (bench/adaptation, "online"): after a recording, Baum-Welch
 * statistics of each known speaker's speech along the first pass's words are kept (not the audio), and
 * one transform is solved from the speaker's kept statistics; the project's later recordings decode that
 * speaker's chunks with it. Nothing is decoded twice.
 *
 * Files, under `<data>/adaptation/<project>/<speaker>/`: `rec/<session>/` (bw's sums) with
 * `rec/<session>.json` (seconds, when), `transform.mllr` and `state.json` (what the API shows), the last
 * two written atomically, so a decoder reading the transform never sees half of one.
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
}

export interface AdaptationSummary {
  recordings: number;
  seconds: number;
  updated_at: string;
}

interface RecordingMeta {
  seconds: number;
  at: string;
}

/** Too little of one speaker in one recording to be worth a Baum-Welch run. */
export const MIN_RECORDING_SECONDS = 1;

/** The kept recordings (newest first) within the bounds; the rest are to be removed. */
export function keptRecordings<T extends { seconds: number; at: string }>(
  recordings: readonly T[],
  settings: Pick<AdaptationSettings, 'maxSeconds' | 'maxRecordings'>,
): { kept: T[]; dropped: T[] } {
  const sorted = [...recordings].sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0));
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
  const bare = word.toLowerCase().replace(/^[^a-z0-9']+|[^a-z0-9']+$/g, '');
  return bare && dictionary.has(bare) ? bare : null;
}

/**
 * A line's words as the dictionary spells them, or null when one has no entry there: Baum-Welch needs every
 * word's phones, so such a line is left out whole.
 */
export function alignableWords(words: ReadonlyArray<{ word: string }>, dictionary: ReadonlySet<string>): string[] | null {
  const spelled = words.map((w) => dictionaryWord(w.word, dictionary));
  return spelled.some((w) => w === null) ? null : (spelled as string[]);
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

  summary(projectId: string, speakerId: string): AdaptationSummary | null {
    try {
      return JSON.parse(fs.readFileSync(path.join(this.speakerDir(projectId, speakerId), 'state.json'), 'utf8')) as AdaptationSummary;
    } catch {
      return null;
    }
  }

  /** Lower-case words of the recognizer's dictionary, read once. */
  words(): Set<string> {
    this.dictionary ??= new Set([...dictionaryWords(fs.readFileSync(this.deps.model.dict, 'utf8'))].map((w) => w.toLowerCase()));
    return this.dictionary;
  }

  /**
   * Adds one recording's speech of a speaker (chunks: 16-bit PCM and dictionary words) and solves the
   * speaker's transform anew. Returns the new summary, or null when no transform results (too little
   * speech so far); throws when a tool fails (the previous transform, if any, stays).
   */
  addRecording(projectId: string, speakerId: string, sessionId: string, chunks: readonly SpeakerChunk[]): Promise<AdaptationSummary | null> {
    const next = this.chain.then(() => this.add(projectId, speakerId, sessionId, chunks));
    this.chain = next.catch(() => undefined);
    return next;
  }

  private async add(projectId: string, speakerId: string, sessionId: string, chunks: readonly SpeakerChunk[]): Promise<AdaptationSummary | null> {
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
      // A re-transcribed recording replaces its statistics.
      const acc = path.join(work, 'acc');
      fs.mkdirSync(acc);
      const current = this.settings.alignAdapted ? this.transform(projectId, speakerId) : null;
      const seconds = await accumulateMllrStats(this.deps.model, tools, hmm, chunks, acc, work, current);
      if (seconds > 0) {
        const target = path.join(recDir, sessionId);
        fs.rmSync(target, { recursive: true, force: true });
        fs.renameSync(acc, target);
        writeFileAtomic(`${target}.json`, JSON.stringify({ seconds, at: new Date().toISOString() } satisfies RecordingMeta));
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
      const summary: AdaptationSummary = { recordings: kept.length, seconds: Math.round(total * 10) / 10, updated_at: new Date().toISOString() };
      writeFileAtomic(path.join(dir, 'state.json'), JSON.stringify(summary));
      this.deps.log?.(
        `adaptation: speaker ${speakerId} from ${kept.length} recordings, ${total.toFixed(1)} s (max |A−I| ${distance.matrix.toFixed(3)}, max |b| ${distance.offset.toFixed(3)})`,
      );
      return summary;
    } finally {
      fs.rmSync(work, { recursive: true, force: true });
    }
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
