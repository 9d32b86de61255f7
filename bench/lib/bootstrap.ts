import { rng } from '../../src/service/speech/diarization/synthetic.testutil';

/** One file scored by two systems on the same reference: its error counts (S+D+I) under each. */
export interface PairedErrors {
  /** Files are resampled within their stratum (the source), so every resample keeps the set's mix. */
  stratum: string;
  ours: number;
  baseline: number;
}

export interface RelativeChangeInterval {
  /** ours / baseline − 1 over all the files (−0.22: 22 % fewer errors). */
  relative: number;
  /** The central `level` share of the resampled changes. */
  low: number;
  high: number;
  /** Share of resamples whose change is at or below `target` (when one is given; 1e-12 of slack for rounding). */
  atOrBelowTarget: number | null;
}

/**
 * How far the relative change in errors between two systems could move on other files of the same kinds: a
 * paired bootstrap over files (both systems keep each drawn file's own counts, so what the files share cancels),
 * stratified by source, percentile interval. It speaks for more recordings like these (the same speakers and
 * conditions), not for speakers the set lacks. Seeded, so a run prints the same interval for the same counts.
 */
export function relativeChangeInterval(
  files: readonly PairedErrors[],
  opts: { resamples?: number; level?: number; seed?: number; target?: number } = {},
): RelativeChangeInterval {
  const { resamples = 2000, level = 0.95, seed = 1, target } = opts;
  const change = (ours: number, baseline: number) => (baseline > 0 ? ours / baseline - 1 : 0);
  const strata = new Map<string, PairedErrors[]>();
  for (const f of files) {
    const group = strata.get(f.stratum);
    if (group) group.push(f);
    else strata.set(f.stratum, [f]);
  }
  const groups = [...strata.values()];
  const next = rng(seed);
  const changes = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    let ours = 0;
    let baseline = 0;
    for (const group of groups) {
      for (let k = 0; k < group.length; k++) {
        const f = group[Math.floor(next() * group.length)]!;
        ours += f.ours;
        baseline += f.baseline;
      }
    }
    changes[r] = change(ours, baseline);
  }
  changes.sort();
  const at = (p: number) => changes[Math.min(resamples - 1, Math.max(0, Math.round(p * (resamples - 1))))]!;
  const tail = (1 - level) / 2;
  return {
    relative: change(
      files.reduce((s, f) => s + f.ours, 0),
      files.reduce((s, f) => s + f.baseline, 0),
    ),
    low: at(tail),
    high: at(1 - tail),
    atOrBelowTarget:
      target === undefined ? null : changes.filter((c) => c <= target + 1e-12).length / resamples,
  };
}
