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
  return logDetSpdInPlace(new Float64Array(matrix), d);
}

/** logDetSpd that overwrites `l` with its Cholesky factor (no allocation: the clustering's hot path). */
function logDetSpdInPlace(l: Float64Array, d: number): number {
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
  return pooledCovarianceLogDet(stats, null, ridge, new Float64Array(stats.sum.length ** 2));
}

/**
 * covarianceLogDet of the union of `a` and `b` (b may be null), computed in the d×d `work` buffer without
 * building the merged statistics: ΔBIC is evaluated for every pair of clusters, often hundreds of
 * thousands of times, and allocating there dominated the clustering's time.
 */
function pooledCovarianceLogDet(
  a: GaussianStats,
  b: GaussianStats | null,
  ridge: number,
  work: Float64Array,
): number {
  const d = a.sum.length;
  const n = Math.max(a.n + (b?.n ?? 0), 1);
  for (let r = 0; r < d; r++) {
    const ma = (b ? a.sum[r]! + b.sum[r]! : a.sum[r]!) / n;
    for (let c = 0; c < d; c++) {
      const scatter = b ? a.scatter[r * d + c]! + b.scatter[r * d + c]! : a.scatter[r * d + c]!;
      const sumC = b ? a.sum[c]! + b.sum[c]! : a.sum[c]!;
      work[r * d + c] = scatter / n - ma * (sumC / n);
    }
    work[r * d + r]! += ridge;
  }
  return logDetSpdInPlace(work, d);
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
  work = new Float64Array(a.sum.length ** 2),
): number {
  const n = a.n + b.n;
  const d = a.sum.length;
  const gain = 0.5 * (n * pooledCovarianceLogDet(a, b, ridge, work) - a.n * logDetA - b.n * logDetB);
  return gain - lambda * 0.5 * fullGaussianParameters(d) * Math.log(n);
}
