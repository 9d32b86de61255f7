import type { Span } from '../types';

/**
 * An audio tagger's output: one row of class scores per analysis patch. Patch p covers
 * [p·hop, p·hop + window] seconds of the input; `scores[p·labels.length + c]` is class c's score in 0–1.
 */
export interface TagFrames {
  /** Seconds between patch starts. */
  hop: number;
  /** Seconds each patch listens to. */
  window: number;
  labels: readonly string[];
  patches: number;
  /** Patch-major: patch p's scores are scores[p·labels.length … (p + 1)·labels.length). */
  scores: Float32Array;
}

/** A model that listens to 16 kHz mono audio and scores sound classes over time. Loads lazily. */
export interface AudioTagger {
  readonly id: string;
  tag(pcm16k: Float32Array, signal?: AbortSignal): Promise<TagFrames>;
  close(): Promise<void>;
}

/** A run of whole patches, and the samples the model needs to compute exactly those patches. */
export interface PatchChunk {
  firstPatch: number;
  patches: number;
  startSample: number;
  endSample: number;
}

/**
 * Patch geometry of a framewise tagger that pads the input at the end to a whole number of hops:
 * patches = 1 + ceil(max(0, N − window) / hop), in samples (YAMNet's `features.pad_waveform`).
 */
export function patchCount(samples: number, windowSamples: number, hopSamples: number): number {
  return 1 + Math.ceil(Math.max(0, samples - windowSamples) / hopSamples);
}

/**
 * Splits a recording into chunks of at most `patchesPerChunk` patches whose starts fall on the patch
 * hop, so each chunk computes exactly the patches one run over the whole input would (the model's
 * frames are a fixed grid from sample 0), while the model only ever holds one chunk. Neighbouring chunks
 * overlap by window − hop samples.
 */
export function chunkPlan(
  samples: number,
  windowSamples: number,
  hopSamples: number,
  patchesPerChunk: number,
): PatchChunk[] {
  if (!(patchesPerChunk >= 1)) throw new Error(`patchesPerChunk must be ≥ 1, got ${patchesPerChunk}`);
  const total = patchCount(samples, windowSamples, hopSamples);
  const chunks: PatchChunk[] = [];
  for (let first = 0; first < total; first += patchesPerChunk) {
    const patches = Math.min(patchesPerChunk, total - first);
    const startSample = first * hopSamples;
    const endSample = Math.min(samples, (first + patches - 1) * hopSamples + windowSamples);
    chunks.push({ firstPatch: first, patches, startSample, endSample });
  }
  return chunks;
}

/** Column indices of the named classes; throws when a name is not among the labels (a different model). */
export function classIndices(labels: readonly string[], names: readonly string[]): number[] {
  return names.map((name) => {
    const i = labels.indexOf(name);
    if (i < 0) throw new Error(`The tagger has no class "${name}"`);
    return i;
  });
}

/** Per patch, the largest score among the given classes. */
export function maxScore(tags: TagFrames, indices: readonly number[]): Float32Array {
  const out = new Float32Array(tags.patches);
  const n = tags.labels.length;
  for (let p = 0; p < tags.patches; p++) {
    let best = 0;
    for (const c of indices) best = Math.max(best, tags.scores[p * n + c]!);
    out[p] = best;
  }
  return out;
}

/** Mean score of each class over the patches whose centre half (the hop they own) overlaps [start, end]. */
export function meanScores(tags: TagFrames, span: Span): Float32Array {
  const [first, last] = patchesOwning(tags, span);
  return meanOverPatches(tags, first, last);
}

/** Mean score of each class over patches first…last (zeros when the range is empty). */
export function meanOverPatches(tags: TagFrames, first: number, last: number): Float32Array {
  const n = tags.labels.length;
  const out = new Float32Array(n);
  if (last < first) return out;
  for (let p = first; p <= last; p++) for (let c = 0; c < n; c++) out[c]! += tags.scores[p * n + c]!;
  for (let c = 0; c < n; c++) out[c]! /= last - first + 1;
  return out;
}

/**
 * The stretch of time patch p stands for on a timeline of hops: its centre ± hop/2. Consecutive
 * patches tile the recording without overlap, which is how runs of patches become spans.
 */
export function patchCell(tags: Pick<TagFrames, 'hop' | 'window'>, p: number): Span {
  const centre = p * tags.hop + tags.window / 2;
  return { start: centre - tags.hop / 2, end: centre + tags.hop / 2 };
}

/** First and last patch whose cell overlaps the span (last < first when none does). */
export function patchesOwning(
  tags: Pick<TagFrames, 'hop' | 'window' | 'patches'>,
  span: Span,
): [number, number] {
  const offset = tags.window / 2 - tags.hop / 2;
  let first = Math.max(0, Math.floor((span.start - offset) / tags.hop));
  let last = Math.min(tags.patches - 1, Math.ceil((span.end - offset) / tags.hop) - 1);
  // A span shorter than a hop still belongs to the patch whose cell holds its middle.
  if (last < first && tags.patches > 0) {
    const mid = Math.min(
      tags.patches - 1,
      Math.max(0, Math.floor(((span.start + span.end) / 2 - offset) / tags.hop)),
    );
    first = mid;
    last = mid;
  }
  return [first, last];
}
