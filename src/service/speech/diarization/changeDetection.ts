import type { FeatureMatrix } from '../../dsp/features';

export interface ChangeDetectionOptions {
  /** Frames on each side of a candidate change (default 100 = 1 s). */
  window?: number;
  /** Smallest window used near span edges (default 50). */
  minWindow?: number;
  /** Frames between candidates (default 5). */
  step?: number;
  /** Smallest distance between two accepted changes, in frames (default 50). */
  minDistance?: number;
  /** Penalty weight λ of the BIC test; lower finds more changes (default 1). */
  lambda?: number;
  /** Added to every variance so silence-like stretches stay finite (default 1e-3). */
  ridge?: number;
}

/** Frames processed at once, so prefix sums stay small even if one speech span lasts an hour. */
const BLOCK = 30_000;

/**
 * Speaker change points in frames [from, to) of `m`: at every candidate t, a diagonal-Gaussian BIC
 * test compares one model of [t−W, t+W) with separate models of [t−W, t) and [t, t+W); peaks with a
 * positive ΔBIC, at least `minDistance` apart, are returned in ascending order.
 */
export function detectSpeakerChanges(
  m: FeatureMatrix,
  from: number,
  to: number,
  options: ChangeDetectionOptions = {},
): number[] {
  const w = options.window ?? 100;
  const minW = options.minWindow ?? 50;
  const step = options.step ?? 5;
  const minDistance = options.minDistance ?? 50;
  const lambda = options.lambda ?? 1;
  const ridge = options.ridge ?? 1e-3;
  const d = m.dim;
  const candidates: { t: number; score: number }[] = [];

  for (let blockStart = from; blockStart < to; blockStart += BLOCK) {
    const a = Math.max(from, blockStart - w);
    const b = Math.min(to, blockStart + BLOCK + w);
    const len = b - a;
    const s1 = new Float64Array((len + 1) * d);
    const s2 = new Float64Array((len + 1) * d);
    for (let i = 0; i < len; i++) {
      for (let k = 0; k < d; k++) {
        const x = m.data[(a + i) * d + k]!;
        s1[(i + 1) * d + k] = s1[i * d + k]! + x;
        s2[(i + 1) * d + k] = s2[i * d + k]! + x * x;
      }
    }
    // Σ log variance of frames [p, q) (block-relative).
    const logVar = (p: number, q: number): number => {
      const n = q - p;
      let acc = 0;
      for (let k = 0; k < d; k++) {
        const mean = (s1[q * d + k]! - s1[p * d + k]!) / n;
        const v = (s2[q * d + k]! - s2[p * d + k]!) / n - mean * mean;
        acc += Math.log(Math.max(v, 0) + ridge);
      }
      return acc;
    };
    const first = Math.max(from + minW, blockStart);
    const last = Math.min(to - minW, blockStart + BLOCK - 1);
    for (let t = first - ((first - from) % step); t <= last; t += step) {
      if (t < from + minW) continue;
      const left = Math.min(w, t - from);
      const right = Math.min(w, to - t);
      const p = t - left - a;
      const c = t - a;
      const q = t + right - a;
      const n = left + right;
      const gain = 0.5 * (n * logVar(p, q) - left * logVar(p, c) - right * logVar(c, q));
      const score = gain - lambda * 0.5 * (2 * d) * Math.log(n);
      if (score > 0) candidates.push({ t, score });
    }
  }

  candidates.sort((x, y) => y.score - x.score);
  const accepted: number[] = [];
  for (const c of candidates) {
    if (accepted.every((t) => Math.abs(t - c.t) >= minDistance)) accepted.push(c.t);
  }
  return accepted.sort((x, y) => x - y);
}
