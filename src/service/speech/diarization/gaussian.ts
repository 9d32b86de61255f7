import type { FeatureMatrix } from '../../dsp/features';

/**
 * Sufficient statistics of a set of feature frames (count, sum, scatter Σxxᵀ), so that Gaussians of
 * merged sets come from adding statistics rather than revisiting frames.
 */
export interface GaussianStats {
  n: number;
  sum: Float64Array;
  /** Full d×d scatter, row-major. */
  scatter: Float64Array;
}

export function emptyStats(dim: number): GaussianStats {
  return { n: 0, sum: new Float64Array(dim), scatter: new Float64Array(dim * dim) };
}

/** Adds frames [from, to) of `m` to `stats`. */
export function accumulate(stats: GaussianStats, m: FeatureMatrix, from: number, to: number): GaussianStats {
  const d = m.dim;
  for (let i = from; i < to; i++) {
    const o = i * d;
    for (let a = 0; a < d; a++) {
      const xa = m.data[o + a]!;
      stats.sum[a]! += xa;
      const row = a * d;
      for (let b = a; b < d; b++) stats.scatter[row + b]! += xa * m.data[o + b]!;
    }
    stats.n++;
  }
  // Only the upper triangle is accumulated; mirror it so the matrix is whole.
  for (let a = 0; a < d; a++)
    for (let b = a + 1; b < d; b++) stats.scatter[b * d + a] = stats.scatter[a * d + b]!;
  return stats;
}

export function addStats(a: GaussianStats, b: GaussianStats): GaussianStats {
  const out = emptyStats(a.sum.length);
  out.n = a.n + b.n;
  for (let i = 0; i < a.sum.length; i++) out.sum[i] = a.sum[i]! + b.sum[i]!;
  for (let i = 0; i < a.scatter.length; i++) out.scatter[i] = a.scatter[i]! + b.scatter[i]!;
  return out;
}

/** log-determinant of a symmetric positive-definite matrix by Cholesky; NaN if it is not positive definite. */
export function logDetSpd(matrix: Float64Array, d: number): number {
  const l = new Float64Array(matrix);
  let logDet = 0;
  for (let j = 0; j < d; j++) {
    let diag = l[j * d + j]!;
    for (let k = 0; k < j; k++) diag -= l[j * d + k]! ** 2;
    if (!(diag > 0)) return NaN;
    const root = Math.sqrt(diag);
    l[j * d + j] = root;
    logDet += 2 * Math.log(root);
    for (let i = j + 1; i < d; i++) {
      let v = l[i * d + j]!;
      for (let k = 0; k < j; k++) v -= l[i * d + k]! * l[j * d + k]!;
      l[i * d + j] = v / root;
    }
  }
  return logDet;
}

/**
 * log|Σ| of the maximum-likelihood covariance, with `ridge` added to the diagonal so that short
 * segments (fewer frames than dimensions) still give a finite value.
 */
export function covarianceLogDet(stats: GaussianStats, ridge: number): number {
  const d = stats.sum.length;
  const n = Math.max(stats.n, 1);
  const cov = new Float64Array(d * d);
  for (let a = 0; a < d; a++) {
    const ma = stats.sum[a]! / n;
    for (let b = 0; b < d; b++) cov[a * d + b] = stats.scatter[a * d + b]! / n - ma * (stats.sum[b]! / n);
    cov[a * d + a]! += ridge;
  }
  return logDetSpd(cov, d);
}

/** Number of free parameters of a full-covariance Gaussian in d dimensions. */
export function fullGaussianParameters(d: number): number {
  return d + (d * (d + 1)) / 2;
}

/**
 * ΔBIC for modelling two sets with one Gaussian instead of two (full covariance). Negative means one
 * Gaussian is the better model, i.e. the sets likely come from the same speaker. λ weighs the penalty.
 */
export function deltaBic(
  a: GaussianStats,
  b: GaussianStats,
  lambda: number,
  ridge: number,
  logDetA = covarianceLogDet(a, ridge),
  logDetB = covarianceLogDet(b, ridge),
): number {
  const merged = addStats(a, b);
  const n = merged.n;
  const d = a.sum.length;
  const gain = 0.5 * (n * covarianceLogDet(merged, ridge) - a.n * logDetA - b.n * logDetB);
  return gain - lambda * 0.5 * fullGaussianParameters(d) * Math.log(n);
}
