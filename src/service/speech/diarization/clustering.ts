import { addStats, covarianceLogDet, deltaBic, type GaussianStats } from './gaussian';

export interface BicClusteringOptions {
  /** Penalty weight λ; higher merges more (fewer speakers). */
  lambda: number;
  ridge: number;
  minClusters?: number;
  maxClusters?: number;
}

/**
 * Agglomerative clustering with full-covariance Gaussians: repeatedly merge the pair with the lowest ΔBIC
 * while it is negative (the automatic speaker count), then keep merging past that only to get down to
 * `maxClusters`, and never below `minClusters`. Returns a cluster index (0-based, dense) per item.
 * Cost is O(n²) distances, so callers cap n.
 */
export function bicAgglomerate(items: GaussianStats[], options: BicClusteringOptions): number[] {
  const n = items.length;
  const minClusters = Math.max(1, options.minClusters ?? 1);
  const maxClusters = options.maxClusters ?? Infinity;
  const stats: (GaussianStats | null)[] = items.slice();
  const logDet = items.map((s) => covarianceLogDet(s, options.ridge));
  const owner = items.map((_, i) => i);
  const dist = new Float64Array(n * n).fill(Infinity);
  const work = new Float64Array(items[0] ? items[0].sum.length ** 2 : 0);
  const pair = (i: number, j: number) =>
    deltaBic(stats[i]!, stats[j]!, options.lambda, options.ridge, logDet[i], logDet[j], work);
  for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) dist[i * n + j] = pair(i, j);

  let active = n;
  while (active > minClusters) {
    let best = Infinity;
    let bi = -1;
    let bj = -1;
    for (let i = 0; i < n; i++) {
      if (!stats[i]) continue;
      for (let j = i + 1; j < n; j++) {
        const v = dist[i * n + j]!;
        if (v < best && stats[j]) {
          best = v;
          bi = i;
          bj = j;
        }
      }
    }
    if (bi < 0 || (best >= 0 && active <= maxClusters)) break;
    stats[bi] = addStats(stats[bi]!, stats[bj]!);
    logDet[bi] = covarianceLogDet(stats[bi]!, options.ridge);
    stats[bj] = null;
    for (let k = 0; k < n; k++) if (owner[k] === bj) owner[k] = bi;
    for (let k = 0; k < n; k++) {
      if (k === bi || !stats[k]) continue;
      const [a, b] = k < bi ? [k, bi] : [bi, k];
      dist[a * n + b] = pair(a, b);
    }
    active--;
  }
  const dense = new Map<number, number>();
  return owner.map((o) => {
    if (!dense.has(o)) dense.set(o, dense.size);
    return dense.get(o)!;
  });
}

/**
 * One left-to-right pass merging each segment into the previous one while ΔBIC says they are the same
 * voice (LIUM's "linear clustering"): cheap, and it removes most over-segmentation before the O(n²) step.
 * `joinable[i]` says whether segment i may join segment i−1 (e.g. same speech span).
 */
export function mergeAdjacent(
  items: GaussianStats[],
  joinable: boolean[],
  lambda: number,
  ridge: number,
): { stats: GaussianStats[]; groups: number[][] } {
  const stats: GaussianStats[] = [];
  const groups: number[][] = [];
  items.forEach((s, i) => {
    const last = stats.length - 1;
    if (i > 0 && joinable[i] && last >= 0 && deltaBic(stats[last]!, s, lambda, ridge) < 0) {
      stats[last] = addStats(stats[last]!, s);
      groups[last]!.push(i);
    } else {
      stats.push(s);
      groups.push([i]);
    }
  });
  return { stats, groups };
}
