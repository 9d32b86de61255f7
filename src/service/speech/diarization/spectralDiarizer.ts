import { createFeatureMatrix, normalizeMeanVariance, type FeatureMatrix } from '../../dsp/features';
import { computeMfcc } from '../../dsp/mfcc';
import { computeProfile } from '../speakers/profile';
import type { DiarizationResult, DiarizeOptions, Diarizer, SpeakerTurn, Span } from '../types';
import { SAMPLE_RATE } from '../types';
import { detectSpeakerChanges } from './changeDetection';
import { bicAgglomerate, mergeAdjacent } from './clustering';
import { accumulate, addStats, emptyStats, type GaussianStats } from './gaussian';
import { gmmScoreFrames, trainGmm } from './gmm';
import { coverSpans, keptFrameSeconds, quietThreshold, splitAtPauses } from './pauses';
import { secondSpeakers, windowMeans } from './overlap';
import { labelsToTurns } from './turns';
import { viterbiLabels } from './viterbi';
import { frameVoicing } from './voicing';

export interface SpectralDiarizerSettings {
  /** Cepstra used for clustering, c1 … c(n) (profiles always use c1…c19). */
  clusterCepstra: number;
  /** Upper edge of the mel filterbank for clustering features, Hz. */
  highHz: number;
  /** Whether c0 (frame loudness) joins the clustering features. */
  useC0: boolean;
  changeWindow: number;
  changeLambda: number;
  /** ΔBIC weight for merging neighbouring segments. */
  linearLambda: number;
  /**
   * The same for files too long for one clustering block (more than `maxSegments` items): block clustering
   * does not yet merge one voice's clusters across blocks when segments are long (33 speakers instead of 13
   * on 55 min at 1.15), so those files keep the weaker merge.
   */
  blockLinearLambda: number;
  /** ΔBIC weight for the agglomerative stage; decides the speaker count. */
  clusterLambda: number;
  ridge: number;
  /**
   * Segments longer than this (frames) are cut into equal pieces before clustering, so a missed change
   * (or a caller's minSpeakers) can still separate voices; 0 disables.
   */
  maxSegmentFrames: number;
  /** Segments shorter than this (frames) sit out clustering and get a label from resegmentation. */
  minClusterFrames: number;
  /** Upper bound on segments entering the O(n²) clustering (memory and time bound for long files). */
  maxSegments: number;
  resegmentIterations: number;
  gmmComponents: number;
  /** Viterbi cost of switching speaker between frames (log-likelihood units). */
  switchPenalty: number;
  /** Clusters with less speech than this (seconds) after resegmentation are folded into the others. */
  minSpeakerSeconds: number;
  /**
   * Frames this many dB under the speech level (90th percentile of frame energy in the spans) are quiet:
   * left out of every model, and where they last `minPauseSeconds` they split a span. 0 disables both
   * (the default: it fixes `sample` but loses the long recording's speakers, bench/diarization/README.md).
   */
  pauseDb: number;
  minPauseSeconds: number;
  /**
   * Frames less periodic than this (voicing.ts; unvoiced, noise, overlapped voices) are left out of every
   * model and labelled from their neighbours. 0 disables (the default: bench/diarization/README.md).
   */
  minVoicing: number;
  /**
   * Overlapped speech (overlap.ts): a second speaker where that speaker's model explains a window of
   * `overlapWindow` frames at least as well as this quantile of its own speech does, for at least
   * `overlapMinFrames`. 0 disables (the default: bench/diarization/README.md).
   */
  overlapQuantile: number;
  overlapWindow: number;
  overlapMinFrames: number;
}

export const DEFAULT_DIARIZER_SETTINGS: SpectralDiarizerSettings = {
  clusterCepstra: 19,
  highHz: 8000,
  useC0: false,
  changeWindow: 100,
  changeLambda: 1,
  linearLambda: 1.15,
  blockLinearLambda: 1,
  clusterLambda: 1.8,
  ridge: 1e-3,
  maxSegmentFrames: 300,
  minClusterFrames: 50,
  maxSegments: 600,
  resegmentIterations: 2,
  gmmComponents: 16,
  switchPenalty: 50,
  minSpeakerSeconds: 3,
  pauseDb: 0,
  minPauseSeconds: 0.2,
  minVoicing: 0,
  overlapQuantile: 0,
  overlapWindow: 50,
  overlapMinFrames: 30,
};

const HOP = 160;
const FRAME = 400;

interface Segment {
  from: number;
  to: number;
  run: number;
}

/**
 * Speaker diarization from spectral features alone (no neural embeddings): MFCC frames over the speech
 * spans → BIC speaker-change detection → BIC linear and agglomerative clustering (automatic speaker
 * count) → GMM/Viterbi resegmentation. Memory is the feature matrix plus capped O(segments²) distances.
 */
export class SpectralDiarizer implements Diarizer {
  readonly settings: SpectralDiarizerSettings;

  constructor(settings: Partial<SpectralDiarizerSettings> = {}) {
    this.settings = { ...DEFAULT_DIARIZER_SETTINGS, ...settings };
  }

  async diarize(pcm: Float32Array, speech: Span[], options: DiarizeOptions = {}): Promise<DiarizationResult> {
    return diarizeSpectral(pcm, speech, options, this.settings);
  }
}

export function diarizeSpectral(
  pcm: Float32Array,
  speech: Span[],
  options: DiarizeOptions,
  s: SpectralDiarizerSettings,
): DiarizationResult {
  const { mfcc, logEnergy } = computeMfcc(pcm, {
    coefficients: Math.max(20, s.clusterCepstra + 1),
    frameLength: FRAME,
    hop: HOP,
  });
  // Clustering features may use a narrower band than profiles (which stay full-band for comparability).
  const clusterMfcc =
    s.highHz < SAMPLE_RATE / 2
      ? computeMfcc(pcm, {
          coefficients: s.clusterCepstra + 1,
          frameLength: FRAME,
          hop: HOP,
          highHz: s.highHz,
        }).mfcc
      : mfcc;
  const frameStart = (i: number) => (i * HOP + FRAME / 2 - HOP / 2) / SAMPLE_RATE;
  const frameOf = (t: number) =>
    Math.max(0, Math.min(mfcc.frames, Math.round((t * SAMPLE_RATE - FRAME / 2) / HOP)));

  const given = [...speech].filter((x) => x.end > x.start).sort((a, b) => a.start - b.start);
  // A VAD that bridges pauses leaves background frames in the spans, and segments that straddle a pause
  // between two voices; quiet frames stay out of the models, and longer pauses split the spans.
  const quiet =
    s.pauseDb > 0
      ? quietThreshold(
          logEnergy,
          given.map((x) => [frameOf(x.start), frameOf(x.end)] as const),
          s.pauseDb,
        )
      : -Infinity;
  const minPauseFrames = Math.max(1, Math.round((s.minPauseSeconds * SAMPLE_RATE) / HOP));
  const spans = splitAtPauses(given, logEnergy, quiet, minPauseFrames, frameOf, frameStart);

  // Speech frames, gathered into one compact matrix; runs keep each piece's range in it, rawIndex the
  // original frame of each row.
  // Only clearly periodic frames (one voice, voiced) as evidence, if asked: see minVoicing.
  const voicing = s.minVoicing > 0 ? frameVoicing(pcm, mfcc.frames, HOP, FRAME) : undefined;
  const runs: { from: number; to: number; span: Span }[] = [];
  const kept: number[] = [];
  for (const span of spans) {
    const from = kept.length;
    const end = frameOf(span.end);
    for (let f = frameOf(span.start); f < end; f++) if (logEnergy[f]! >= quiet && (!voicing || voicing[f]! >= s.minVoicing)) kept.push(f);
    if (kept.length > from) runs.push({ from, to: kept.length, span });
  }
  const total = kept.length;
  if (total === 0) return { turns: [], profiles: {} };
  const firstDim = s.useC0 ? 0 : 1;
  const dim = s.clusterCepstra + 1 - firstDim;
  const feats = createFeatureMatrix(total, dim);
  const rawIndex = Int32Array.from(kept);
  rawIndex.forEach((f, i) => {
    const src = f * clusterMfcc.dim + firstDim;
    feats.data.set(clusterMfcc.data.subarray(src, src + dim), i * dim);
  });
  normalizeMeanVariance(feats);
  const frameSeconds = keptFrameSeconds(rawIndex, runs, HOP / SAMPLE_RATE);

  // 1. Change detection inside each speech span.
  let segments: Segment[] = [];
  runs.forEach((run, r) => {
    const changes = detectSpeakerChanges(feats, run.from, run.to, {
      window: s.changeWindow,
      lambda: s.changeLambda,
      ridge: s.ridge,
    });
    let start = run.from;
    for (const c of [...changes, run.to]) {
      segments.push({ from: start, to: c, run: r });
      start = c;
    }
  });

  // 2. Linear clustering of neighbours in the same span, then long segments cut and short ones set aside.
  const statsOf = (seg: Segment): GaussianStats => accumulate(emptyStats(dim), feats, seg.from, seg.to);
  const changeSegments = segments;
  const changeStats = changeSegments.map(statsOf);
  const prepare = (linearLambda: number) => {
    const joinable = changeSegments.map((seg, i) => i > 0 && changeSegments[i - 1]!.run === seg.run);
    const merged = mergeAdjacent(changeStats, joinable, linearLambda, s.ridge);
    const joined = merged.groups.map((g) => ({
      from: changeSegments[g[0]!]!.from,
      to: changeSegments[g[g.length - 1]!]!.to,
      run: changeSegments[g[0]!]!.run,
    }));
    const cut = cutLongSegments(joined, merged.stats, s.maxSegmentFrames, statsOf);
    const longOnes = cut.segments
      .map((seg, i) => i)
      .filter((i) => cut.segments[i]!.to - cut.segments[i]!.from >= s.minClusterFrames);
    return { ...cut, clusterItems: longOnes.length ? longOnes : cut.segments.map((_, i) => i) };
  };
  let prepared = prepare(s.linearLambda);
  // Block clustering (below) over-splits the longer segments of the stronger merge, so files that need
  // blocks fall back to the weaker one (bench/diarization/README.md, "linear clustering").
  if (prepared.clusterItems.length > s.maxSegments && s.blockLinearLambda !== s.linearLambda)
    prepared = prepare(s.blockLinearLambda);
  segments = prepared.segments;
  const segStats = prepared.stats;
  const clusterItems = prepared.clusterItems;

  // 3. Agglomerative BIC clustering over segments long enough to model, capped in number.
  let items = clusterItems.map((i) => ({ stats: segStats[i]!, members: [i] }));
  while (items.length > s.maxSegments) {
    // Too many for one O(n²) pass: cluster consecutive blocks of `maxSegments` items first, then cluster
    // the blocks' clusters (statistics add up). If a level barely shrinks, pair neighbours as a last resort.
    const next: typeof items = [];
    for (let b = 0; b < items.length; b += s.maxSegments) {
      const block = items.slice(b, b + s.maxSegments);
      const owner = bicAgglomerate(
        block.map((x) => x.stats),
        { lambda: s.clusterLambda, ridge: s.ridge },
      );
      const grouped = new Map<number, (typeof items)[number]>();
      block.forEach((item, i) => {
        const g = grouped.get(owner[i]!);
        grouped.set(
          owner[i]!,
          g ? { stats: addStats(g.stats, item.stats), members: [...g.members, ...item.members] } : item,
        );
      });
      next.push(...grouped.values());
    }
    if (next.length > 0.9 * items.length) {
      items = [];
      for (let i = 0; i < next.length; i += 2) {
        const a = next[i]!;
        const b = next[i + 1];
        items.push(b ? { stats: addStats(a.stats, b.stats), members: [...a.members, ...b.members] } : a);
      }
    } else items = next;
  }
  const clusterOfItem = bicAgglomerate(
    items.map((x) => x.stats),
    {
      lambda: s.clusterLambda,
      ridge: s.ridge,
      minClusters: options.minSpeakers,
      maxClusters: options.maxSpeakers,
    },
  );
  const labels = new Int32Array(total).fill(-1);
  items.forEach((item, k) => {
    for (const i of item.members) labels.fill(clusterOfItem[k]!, segments[i]!.from, segments[i]!.to);
  });
  let clusterCount = Math.max(...clusterOfItem) + 1;

  // 4. Resegmentation: a GMM per cluster, Viterbi over each speech run; short segments get labels here.
  for (let it = 0; it < Math.max(1, s.resegmentIterations); it++) {
    const result = resegment(feats, labels, clusterCount, runs, s);
    // Resegmentation may absorb a cluster; a caller's minSpeakers outranks it.
    if (result.clusters < Math.min(clusterCount, options.minSpeakers ?? 1)) break;
    labels.set(result.labels);
    clusterCount = result.clusters;
    // Drop clusters too small to be a speaker, unless that would go below minSpeakers.
    const seconds = new Float64Array(clusterCount);
    for (let i = 0; i < total; i++) seconds[labels[i]!]! += frameSeconds[i]!;
    const keep = [...seconds.keys()].filter((c) => seconds[c]! >= s.minSpeakerSeconds);
    const floor = Math.min(clusterCount, options.minSpeakers ?? 1);
    if (keep.length < clusterCount && keep.length >= floor && keep.length > 0) {
      const remap = new Map(keep.map((c, i) => [c, i]));
      for (let i = 0; i < total; i++) labels[i] = remap.get(labels[i]!) ?? -1;
      clusterCount = keep.length;
      const again = resegment(feats, labels, clusterCount, runs, s);
      labels.set(again.labels);
    }
  }

  const { turns, names } = labelsToTurns(runs, labels, (i) => frameStart(rawIndex[i]!));
  const profiles: Record<string, number[]> = {};
  for (const [cluster, name] of names) {
    const frames: number[] = [];
    for (let i = 0; i < total; i++) if (labels[i] === cluster) frames.push(rawIndex[i]!);
    profiles[name] = computeProfile(mfcc, frames);
  }
  // Pauses and quiet edges left out above go to the neighbouring turns: the output covers the given speech.
  const covered = coverSpans(turns, given);
  if (s.overlapQuantile <= 0 || clusterCount < 2) return { turns: covered, profiles };
  const overlapped = overlapTurns(feats, labels, clusterCount, runs, s, (i) => frameStart(rawIndex[i]!), names);
  return { turns: [...covered, ...overlapped].sort((a, b) => a.start - b.start), profiles };
}

/** Turns of a second voice over the first (overlap.ts), from GMMs of the final clusters. */
function overlapTurns(
  feats: FeatureMatrix,
  labels: Int32Array,
  clusters: number,
  runs: { from: number; to: number }[],
  s: SpectralDiarizerSettings,
  frameStart: (i: number) => number,
  names: Map<number, string>,
): SpeakerTurn[] {
  const members: number[][] = Array.from({ length: clusters }, () => []);
  labels.forEach((c, i) => {
    if (c >= 0) members[c]!.push(i);
  });
  const models = members.map((m) => (m.length ? trainGmm(feats, m, { components: s.gmmComponents }) : null));
  const scores = new Float64Array(labels.length * clusters);
  for (const run of runs) {
    const n = run.to - run.from;
    const part = new Float64Array(n * clusters);
    models.forEach((g, c) => {
      if (g) gmmScoreFrames(g, feats, run.from, run.to, part, clusters, c);
      else for (let f = 0; f < n; f++) part[f * clusters + c] = -Infinity;
    });
    scores.set(part, run.from * clusters);
  }
  const means = windowMeans(scores, clusters, runs, s.overlapWindow);
  const second = secondSpeakers(means, labels, clusters, runs, s.overlapQuantile, s.overlapMinFrames);
  const out: SpeakerTurn[] = [];
  for (const run of runs) {
    let f = run.from;
    while (f < run.to) {
      const b = second[f]!;
      let g = f + 1;
      while (g < run.to && second[g] === b) g++;
      const name = names.get(b);
      if (b >= 0 && name) out.push({ start: frameStart(f), end: frameStart(g - 1) + HOP / SAMPLE_RATE, speaker: name });
      f = g;
    }
  }
  return out;
}

/** Segments longer than `maxFrames` cut into equal pieces (0 = no cutting), with their statistics. */
function cutLongSegments(
  segments: Segment[],
  stats: GaussianStats[],
  maxFrames: number,
  statsOf: (seg: Segment) => GaussianStats,
): { segments: Segment[]; stats: GaussianStats[] } {
  if (maxFrames <= 0) return { segments, stats };
  const cut: Segment[] = [];
  const cutStats: GaussianStats[] = [];
  segments.forEach((seg, i) => {
    const length = seg.to - seg.from;
    const pieces = Math.ceil(length / maxFrames);
    if (pieces <= 1) {
      cut.push(seg);
      cutStats.push(stats[i]!);
      return;
    }
    for (let p = 0; p < pieces; p++) {
      const piece = {
        from: seg.from + Math.round((p * length) / pieces),
        to: seg.from + Math.round(((p + 1) * length) / pieces),
        run: seg.run,
      };
      cut.push(piece);
      cutStats.push(statsOf(piece));
    }
  });
  return { segments: cut, stats: cutStats };
}

/**
 * One round of GMM training on current labels (−1 = unlabelled) and Viterbi decoding of every run.
 * Returns dense labels; clusters that receive no frames disappear.
 */
function resegment(
  feats: FeatureMatrix,
  labels: Int32Array,
  clusters: number,
  runs: { from: number; to: number }[],
  s: SpectralDiarizerSettings,
): { labels: Int32Array; clusters: number } {
  const members: number[][] = Array.from({ length: clusters }, () => []);
  labels.forEach((c, i) => {
    if (c >= 0) members[c]!.push(i);
  });
  const present = members.map((m, c) => c).filter((c) => members[c]!.length > 0);
  const models = present.map((c) => trainGmm(feats, members[c]!, { components: s.gmmComponents }));
  const k = models.length;
  const out = new Int32Array(labels.length);
  for (const run of runs) {
    const n = run.to - run.from;
    const scores = new Float64Array(n * k);
    for (let c = 0; c < k; c++) gmmScoreFrames(models[c]!, feats, run.from, run.to, scores, k, c);
    out.set(viterbiLabels(scores, n, k, s.switchPenalty), run.from);
  }
  // Dense renumbering.
  const used = [...new Set(out)].sort((a, b) => a - b);
  const dense = new Map(used.map((c, i) => [c, i]));
  for (let i = 0; i < out.length; i++) out[i] = dense.get(out[i]!)!;
  return { labels: out, clusters: used.length };
}
