import type { FeatureMatrix } from '../../dsp/features';

/** A diagonal-covariance Gaussian mixture. */
export interface DiagonalGmm {
  k: number;
  dim: number;
  logWeights: Float64Array;
  means: Float64Array;
  variances: Float64Array;
  /** 1/σ², precomputed: scoring multiplies instead of dividing. */
  precisions: Float64Array;
  /** Per component: log weight − ½(d·log 2π + Σ log σ²), precomputed. */
  constants: Float64Array;
}

export interface GmmTrainingOptions {
  components?: number;
  iterations?: number;
  varianceFloor?: number;
  /** At most this many frames are used (evenly strided), bounding training time on long recordings. */
  maxFrames?: number;
}

function finalize(g: Omit<DiagonalGmm, 'constants' | 'precisions'>): DiagonalGmm {
  const constants = new Float64Array(g.k);
  const precisions = g.variances.map((v) => 1 / v);
  for (let c = 0; c < g.k; c++) {
    let s = g.dim * Math.log(2 * Math.PI);
    for (let d = 0; d < g.dim; d++) s += Math.log(g.variances[c * g.dim + d]!);
    constants[c] = g.logWeights[c]! - 0.5 * s;
  }
  return { ...g, precisions, constants };
}

function componentLogLik(g: DiagonalGmm, c: number, x: Float32Array | Float64Array, offset: number): number {
  let acc = 0;
  const o = c * g.dim;
  for (let d = 0; d < g.dim; d++) {
    const diff = x[offset + d]! - g.means[o + d]!;
    acc += diff * diff * g.precisions[o + d]!;
  }
  return g.constants[c]! - 0.5 * acc;
}

/** log p(frame) under the mixture (log-sum-exp over components). */
export function gmmLogLikelihood(g: DiagonalGmm, m: FeatureMatrix, frame: number): number {
  const out = new Float64Array(1);
  gmmScoreFrames(g, m, frame, frame + 1, out, 1, 0);
  return out[0]!;
}

/**
 * log p(frame) for frames [from, to), written to out[(t − from)·stride + offset]: the resegmentation's
 * hot loop (frames × clusters × components), so it reuses one scratch row instead of allocating per frame.
 */
export function gmmScoreFrames(
  g: DiagonalGmm,
  m: FeatureMatrix,
  from: number,
  to: number,
  out: Float64Array,
  stride: number,
  offset: number,
): void {
  const ll = new Float64Array(g.k);
  for (let f = from; f < to; f++) {
    let max = -Infinity;
    for (let c = 0; c < g.k; c++) {
      ll[c] = componentLogLik(g, c, m.data, f * m.dim);
      if (ll[c]! > max) max = ll[c]!;
    }
    let sum = 0;
    for (let c = 0; c < g.k; c++) sum += Math.exp(ll[c]! - max);
    out[(f - from) * stride + offset] = max + Math.log(sum);
  }
}

/**
 * Trains a diagonal GMM on the given frames by EM, starting from frames spread evenly through the data
 * (deterministic, so results repeat). Components shrink to what the data can support.
 */
export function trainGmm(
  m: FeatureMatrix,
  frames: ArrayLike<number>,
  options: GmmTrainingOptions = {},
): DiagonalGmm {
  const maxFrames = options.maxFrames ?? 20_000;
  const stride = Math.max(1, Math.ceil(frames.length / maxFrames));
  const idx: number[] = [];
  for (let i = 0; i < frames.length; i += stride) idx.push(frames[i]!);
  const dim = m.dim;
  const k = Math.max(1, Math.min(options.components ?? 8, Math.floor(idx.length / (4 * dim)) || 1));
  const floor = options.varianceFloor ?? 1e-2;
  const iterations = options.iterations ?? 8;

  // Global variance for initialisation.
  const gMean = new Float64Array(dim);
  const gVar = new Float64Array(dim);
  for (const f of idx) for (let d = 0; d < dim; d++) gMean[d]! += m.data[f * dim + d]!;
  for (let d = 0; d < dim; d++) gMean[d]! /= Math.max(1, idx.length);
  for (const f of idx) for (let d = 0; d < dim; d++) gVar[d]! += (m.data[f * dim + d]! - gMean[d]!) ** 2;
  for (let d = 0; d < dim; d++) gVar[d] = Math.max(floor, gVar[d]! / Math.max(1, idx.length));

  const means = new Float64Array(k * dim);
  const variances = new Float64Array(k * dim);
  const logWeights = new Float64Array(k).fill(-Math.log(k));
  for (let c = 0; c < k; c++) {
    const f = idx[Math.floor(((c + 0.5) * idx.length) / k)] ?? 0;
    for (let d = 0; d < dim; d++) {
      means[c * dim + d] = k === 1 ? gMean[d]! : m.data[f * dim + d]!;
      variances[c * dim + d] = gVar[d]!;
    }
  }
  let g = finalize({ k, dim, logWeights, means, variances });
  if (idx.length === 0) return g;

  const post = new Float64Array(k);
  for (let it = 0; it < iterations; it++) {
    const n = new Float64Array(k);
    const s1 = new Float64Array(k * dim);
    const s2 = new Float64Array(k * dim);
    for (const f of idx) {
      let max = -Infinity;
      for (let c = 0; c < k; c++) {
        post[c] = componentLogLik(g, c, m.data, f * dim);
        if (post[c]! > max) max = post[c]!;
      }
      let sum = 0;
      for (let c = 0; c < k; c++) sum += post[c] = Math.exp(post[c]! - max);
      for (let c = 0; c < k; c++) {
        const r = post[c]! / sum;
        if (r < 1e-6) continue;
        n[c]! += r;
        for (let d = 0; d < dim; d++) {
          const x = m.data[f * dim + d]!;
          s1[c * dim + d]! += r * x;
          s2[c * dim + d]! += r * x * x;
        }
      }
    }
    const total = idx.length;
    for (let c = 0; c < k; c++) {
      if (n[c]! < 1e-3) {
        // An emptied component keeps its old parameters with a tiny weight rather than producing NaNs.
        logWeights[c] = Math.log(1e-6);
        continue;
      }
      logWeights[c] = Math.log(n[c]! / total);
      for (let d = 0; d < dim; d++) {
        const mean = s1[c * dim + d]! / n[c]!;
        means[c * dim + d] = mean;
        variances[c * dim + d] = Math.max(floor, s2[c * dim + d]! / n[c]! - mean * mean);
      }
    }
    g = finalize({ k, dim, logWeights, means, variances });
  }
  return g;
}
