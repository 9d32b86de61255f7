import { execFile } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { lowerProcessPriority } from '../../../jobs/background-priority';
import type { PocketSphinxModel } from './model';
import { mllrDistance, parseMllrMatrix } from './mllr-file';
import { readSendump, writeMixtureWeights } from './sendump';
import { processEnvironment } from '../../../config';

/**
 * Unsupervised acoustic adaptation for a second decoding pass: from one speaker's chunks and the first
 * pass's words, estimate decoder flags that fit the model to that speaker. Two methods, both measured in
 * bench/adaptation (README there):
 *
 * - MLLR: sphinxtrain's Baum-Welch (`bw`) collects statistics along the first-pass words, `mllr_solve`
 *   turns them into one affine transform of the Gaussian means per feature stream, PocketSphinx applies it
 *   with `-mllr`. Debian's model has only `sendump`, so its weights are expanded once into
 *   `mixture_weights` (sendump.ts).
 * - Vocal-tract-length warp: decode with a few `-warp_params` and keep the best-scoring warp (pickWarp).
 *
 * Whether any of it is used is decided on the tuning half (chooseAdaptation): no gain there → not used.
 */
export type AdaptationMethod = 'none' | 'mllr' | 'vtln';

export interface SpeakerChunk {
  id: string;
  /** 16 kHz mono 16-bit little-endian PCM. */
  pcm: Buffer;
  /** The first pass's words for this chunk (may be empty). */
  hypothesis: string;
}

export type AdaptationResult = { args: string[]; detail: string } | { args: null; skipped: string };

export interface AcousticAdaptation {
  readonly method: AdaptationMethod;
  /** Decoder flags for the second pass over these chunks, or why there are none (decode unadapted). */
  estimate(chunks: readonly SpeakerChunk[], workDir: string): Promise<AdaptationResult>;
}

/** Below this much transcribed speech a 13×13 transform per stream is noise, not adaptation. */
export const MIN_MLLR_SECONDS = 3;
const BYTES_PER_SECOND = 16000 * 2;

/**
 * The first pass's words as a Baum-Welch transcript line, or null when nothing is left to align.
 * Alternate pronunciations `word(2)` lose their suffix (bw picks from the dictionary), fillers go.
 */
export function bwTranscript(hypothesis: string, id: string): string | null {
  const words = hypothesis
    .split(/\s+/)
    .map((w) => w.replace(/\(\d+\)$/, ''))
    .filter((w) => w && !/^(<.*>|\[.*\]|\+\+.*\+\+)$/.test(w));
  return words.length ? `<s> ${words.join(' ')} </s> (${id})` : null;
}

export interface SphinxtrainTools {
  /** Folder with `bw` and `mllr_solve` (Debian: /usr/lib/sphinxtrain). */
  dir: string;
  sphinxFe: string;
  mdefConvert: string;
  /** Run below a request's decoders (a speaker adaptation queued after a recording; background-priority.ts). */
  deferred?: boolean;
}

export function resolveSphinxtrain(env: NodeJS.ProcessEnv = processEnvironment()): SphinxtrainTools | null {
  const dir = env.TAKELINE_SPHINXTRAIN_DIR || '/usr/lib/sphinxtrain';
  if (!existsSync(path.join(dir, 'bw')) || !existsSync(path.join(dir, 'mllr_solve'))) return null;
  return { dir, sphinxFe: 'sphinx_fe', mdefConvert: 'pocketsphinx_mdef_convert' };
}

function run(program: string, args: string[], logFile: string, signal?: AbortSignal, deferred = false): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = execFile(program, args, { maxBuffer: 64 << 20, signal }, (err, stdout, stderr) => {
      // The log is for a look afterwards; its folder may be gone (a stopped run's work folder was removed), and a
      // throw here, in the child's exit callback, would take the whole process down.
      try {
        writeFileSync(logFile, `${stdout}\n${stderr}`);
      } catch (error) {
        if (!err) return reject(new Error(`${path.basename(program)}: its log could not be written (${(error as Error).message})`));
      }
      // A stop asked for stays an AbortError, so callers can tell it from a failing tool.
      if (err?.name === 'AbortError') reject(err);
      else if (err) reject(new Error(`${path.basename(program)} failed (${logFile}): ${stderr.slice(-300)}`));
      else resolve();
    });
    // Like the decoders, below the service; a speaker adaptation queued after a recording goes lower still.
    lowerProcessPriority(child.pid, undefined, deferred);
  });
}

/**
 * The model laid out for sphinxtrain, built once into `cacheDir`: text mdef, mixture_weights expanded
 * from sendump, the other files linked. Built in a folder of its own and renamed into place whole, since
 * several processes (a team's workers on one data folder) may need it at once: none reads a half-built one.
 */
export async function prepareTrainingModel(
  model: PocketSphinxModel,
  tools: SphinxtrainTools,
  cacheDir: string,
): Promise<string> {
  const dir = path.join(cacheDir, 'sphinxtrain-model');
  const ready = () => existsSync(path.join(dir, 'ready'));
  if (ready()) return dir;
  mkdirSync(cacheDir, { recursive: true });
  const building = mkdtempSync(path.join(cacheDir, '.sphinxtrain-model-'));
  try {
    for (const f of ['means', 'variances', 'transition_matrices', 'noisedict', 'feat.params']) symlinkSync(path.join(model.hmm, f), path.join(building, f));
    writeFileSync(path.join(building, 'mixture_weights'), writeMixtureWeights(readSendump(readFileSync(path.join(model.hmm, 'sendump')))));
    await run(tools.mdefConvert, ['-text', path.join(model.hmm, 'mdef'), path.join(building, 'mdef.txt')], path.join(building, 'mdef.log'), undefined, tools.deferred);
    writeFileSync(path.join(building, 'ready'), '');
    // An older version's half-built folder (built in place) is replaced; another process's finished one is kept.
    if (existsSync(dir) && !ready()) rmSync(dir, { recursive: true, force: true });
    try {
      renameSync(building, dir);
    } catch (error) {
      if (!ready()) throw error;
    }
    return dir;
  } finally {
    rmSync(building, { recursive: true, force: true });
  }
}

/** Seconds of audio in chunks that have words to align. */
export function usableSeconds(chunks: readonly SpeakerChunk[]): number {
  return chunks
    .filter((c) => bwTranscript(c.hypothesis, c.id) !== null)
    .reduce((a, c) => a + c.pcm.length / BYTES_PER_SECOND, 0);
}

/**
 * Baum-Welch statistics of these chunks along their words (sphinx_fe, then bw with mean and variance
 * sums only: mllr_solve reads nothing else) into `accDir`, which must exist and be empty. Statistics of
 * several recordings solve together (solveMllr takes several folders), so a speaker's transform can grow
 * from recording to recording without keeping its audio. Returns the seconds accumulated.
 */
export async function accumulateMllrStats(
  model: PocketSphinxModel,
  tools: SphinxtrainTools,
  hmm: string,
  chunks: readonly SpeakerChunk[],
  accDir: string,
  workDir: string,
  /** A transform to apply to the means while aligning (the speaker's current one), or null. */
  mllrmat: string | null = null,
  /** Stops the tools (their promise rejects). */
  signal?: AbortSignal,
): Promise<number> {
  const usable = chunks.filter((c) => bwTranscript(c.hypothesis, c.id) !== null);
  const seconds = usable.reduce((a, c) => a + c.pcm.length / BYTES_PER_SECOND, 0);
  if (usable.length === 0) return 0;
  const dir = mkdtempSync(path.join(workDir, 'bw-'));
  try {
    for (const sub of ['raw', 'mfc']) mkdirSync(path.join(dir, sub));
    for (const c of usable) writeFileSync(path.join(dir, 'raw', `${c.id}.raw`), c.pcm);
    const ctl = path.join(dir, 'ctl');
    writeFileSync(ctl, usable.map((c) => c.id).join('\n') + '\n');
    writeFileSync(path.join(dir, 'lsn'), usable.map((c) => bwTranscript(c.hypothesis, c.id)).join('\n') + '\n');
    // Same front end as the decoder: the model's feat.params.
    await run(
      tools.sphinxFe,
      ['-argfile', path.join(hmm, 'feat.params'), '-samprate', '16000', '-c', ctl, '-di', path.join(dir, 'raw'), '-do', path.join(dir, 'mfc'),
        '-ei', 'raw', '-eo', 'mfc', '-raw', 'yes', '-input_endian', 'little'],
      path.join(dir, 'fe.log'),
      signal,
      tools.deferred,
    );
    await run(
      path.join(tools.dir, 'bw'),
      ['-moddeffn', path.join(hmm, 'mdef.txt'), '-meanfn', path.join(hmm, 'means'), '-varfn', path.join(hmm, 'variances'),
        '-mixwfn', path.join(hmm, 'mixture_weights'), '-tmatfn', path.join(hmm, 'transition_matrices'), '-ts2cbfn', '.ptm.',
        '-feat', '1s_c_d_dd', '-svspec', '0-12/13-25/26-38', '-cmn', 'current', '-agc', 'none', '-dictfn', model.dict,
        '-fdictfn', path.join(hmm, 'noisedict'), '-ctlfn', ctl, '-lsnfn', path.join(dir, 'lsn'), '-cepdir', path.join(dir, 'mfc'),
        '-accumdir', accDir, '-mixwreest', 'no', '-tmatreest', 'no', '-timing', 'no', ...(mllrmat ? ['-mllrmat', mllrmat] : [])],
      path.join(dir, 'bw.log'),
      signal,
      tools.deferred,
    );
    return seconds;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * One MLLR transform from the statistics in `accDirs` (mllr_solve pools them) into `out`; parsed back so
 * a singular estimate (NaN) or a truncated file is refused. Returns how far it moves the model. The
 * folders' paths must not contain commas.
 */
export async function solveMllr(
  tools: SphinxtrainTools,
  hmm: string,
  accDirs: readonly string[],
  out: string,
  logFile: string,
  signal?: AbortSignal,
): Promise<{ matrix: number; offset: number }> {
  await run(
    path.join(tools.dir, 'mllr_solve'),
    // A string list in sphinxbase's argument parser is one value, comma-separated.
    ['-meanfn', path.join(hmm, 'means'), '-varfn', path.join(hmm, 'variances'), '-outmllrfn', out, '-accumdir', accDirs.join(',')],
    logFile,
    signal,
    tools.deferred,
  );
  return mllrDistance(parseMllrMatrix(readFileSync(out, 'utf8')));
}

/**
 * The model's means moved by an MLLR transform (sphinxtrain's `mllr_transform`), written to `out` as a
 * means file: the prior that MAP re-estimation starts from (MLLR first, then MAP, the textbook order).
 */
export async function transformMeans(
  tools: SphinxtrainTools,
  hmm: string,
  mllr: string,
  out: string,
  logFile: string,
  signal?: AbortSignal,
): Promise<void> {
  await run(
    path.join(tools.dir, 'mllr_transform'),
    ['-inmeanfn', path.join(hmm, 'means'), '-mllrmat', mllr, '-outmeanfn', out],
    logFile,
    signal,
    tools.deferred,
  );
}

/**
 * Prior weight of MAP re-estimation (relevance MAP: a Gaussian's adapted mean is
 * (τ·prior + Σγx) / (τ + Σγ)). τ = 20 frames is the conventional value (Kaldi's train_map default; Gauvain and
 * Lee's range is about 10–20), not fitted here: below about τ frames of a Gaussian's speech the prior keeps
 * most of its weight, so the scarce, unevenly spread corrected speech moves only the Gaussians it really
 * covers. (map_adapt's other estimator, `-bayesmean`, weighs the data by its own variance, which one or two
 * frames make near zero: with a minute of speech over 16 000 Gaussians it copies single frames.)
 */
export const MAP_TAU = 20;

/**
 * MAP re-estimation of the Gaussian means (sphinxtrain's `map_adapt`, relevance MAP with a fixed τ) from bw
 * statistics (`accDirs`, pooled), starting from `priorMeans`; writes the adapted means to `out`. Only the
 * means move: the variances, mixture weights and transitions stay the model's. The folders' paths must not
 * contain commas.
 */
export async function mapAdaptMeans(
  tools: SphinxtrainTools,
  hmm: string,
  priorMeans: string,
  accDirs: readonly string[],
  out: string,
  logFile: string,
  options: { tau?: number; signal?: AbortSignal } = {},
): Promise<void> {
  await run(
    path.join(tools.dir, 'map_adapt'),
    ['-moddeffn', path.join(hmm, 'mdef.txt'), '-ts2cbfn', '.ptm.', '-meanfn', priorMeans, '-varfn', path.join(hmm, 'variances'),
      '-mixwfn', path.join(hmm, 'mixture_weights'), '-tmatfn', path.join(hmm, 'transition_matrices'), '-accumdir', accDirs.join(','),
      '-mapmeanfn', out, '-bayesmean', 'no', '-fixedtau', 'yes', '-tau', String(options.tau ?? MAP_TAU)],
    logFile,
    options.signal,
    tools.deferred,
  );
}

export function createMllrAdaptation(
  model: PocketSphinxModel,
  tools: SphinxtrainTools,
  cacheDir: string,
): AcousticAdaptation {
  let prepared: Promise<string> | null = null;
  return {
    method: 'mllr',
    async estimate(chunks, workDir) {
      const seconds = usableSeconds(chunks);
      if (seconds < MIN_MLLR_SECONDS)
        return { args: null, skipped: `only ${seconds.toFixed(1)} s with words` };
      const dir = mkdtempSync(path.join(workDir, 'mllr-'));
      try {
        prepared ??= prepareTrainingModel(model, tools, cacheDir);
        const hmm = await prepared;
        const acc = path.join(dir, 'acc');
        mkdirSync(acc);
        await accumulateMllrStats(model, tools, hmm, chunks, acc, dir);
        const out = path.join(workDir, `${path.basename(dir)}.mllr`);
        const distance = await solveMllr(tools, hmm, [acc], out, path.join(dir, 'mllr.log'));
        const usable = chunks.filter((c) => bwTranscript(c.hypothesis, c.id) !== null).length;
        return {
          args: ['-mllr', out],
          detail: `${usable} chunks, ${seconds.toFixed(1)} s; max |A−I| ${distance.matrix.toFixed(3)}, max |b| ${distance.offset.toFixed(3)}`,
        };
      } catch (err) {
        return { args: null, skipped: (err as Error).message };
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/** Frequency warps tried per speaker; 1 is the unwarped first pass. */
export const WARP_GRID: readonly number[] = [0.9, 0.95, 1, 1.05, 1.1];

export function warpArgs(alpha: number): string[] {
  return alpha === 1 ? [] : ['-warp_type', 'inverse_linear', '-warp_params', String(alpha)];
}

/**
 * The warp whose decode scored best per frame, pooled over the speaker's chunks (path scores are log
 * likelihoods, summed over chunks, so one long chunk does not outvote the rest by accident of length).
 * Ties keep the warp nearer 1.
 */
export function pickWarp(scores: ReadonlyMap<number, number>): number {
  let best = 1;
  let bestScore = scores.get(1) ?? -Infinity;
  for (const [alpha, score] of scores) {
    if (score > bestScore || (score === bestScore && Math.abs(alpha - 1) < Math.abs(best - 1))) {
      best = alpha;
      bestScore = score;
    }
  }
  return best;
}

export interface TuningOutcome {
  method: AdaptationMethod;
  /** Word errors on the tuning half without and with the method. */
  baselineErrors: number;
  adaptedErrors: number;
  referenceWords: number;
  /** Extra CPU seconds per audio second over the first pass alone, when measured. */
  extraCpu?: number;
}

export interface ChooseOptions {
  /** Default 2 %. */
  minRelativeGain?: number;
  /** Default 3: one or two words either way is what a rerun or a moved chunk boundary changes. */
  minWords?: number;
  /** CPU seconds per audio second the speed target leaves for adaptation; a method costing more is out. */
  maxExtraCpu?: number;
}

/**
 * The fallback: a method is used only if, on the tuning half, it removed at least `minRelativeGain` of the
 * errors and at least `minWords` of them, within the CPU the speed target leaves; the best such method
 * wins, else 'none'.
 */
export function chooseAdaptation(
  outcomes: readonly TuningOutcome[],
  options: ChooseOptions = {},
): AdaptationMethod {
  const { minRelativeGain = 0.02, minWords = 3, maxExtraCpu = Infinity } = options;
  let best: AdaptationMethod = 'none';
  let bestGain = 0;
  for (const o of outcomes) {
    if (o.method === 'none' || o.baselineErrors <= 0) continue;
    const fewer = o.baselineErrors - o.adaptedErrors;
    const gain = fewer / o.baselineErrors;
    if ((o.extraCpu ?? 0) > maxExtraCpu) continue;
    if (gain >= minRelativeGain && fewer >= minWords && gain > bestGain) {
      best = o.method;
      bestGain = gain;
    }
  }
  return best;
}
