import type { LevelTrack } from '../../dsp/levels';
import { median } from '../../dsp/stats';

/**
 * Energy onsets and offsets on a level track, for placing event boundaries more finely than the tagger's
 * 0.48 s grid. The cue is a step of the median frame level: the median over `window` seconds after a
 * point against the median over `window` seconds before it. The median ignores single clicks and the
 * gaps between claps or laughs. Over a clean step the statistic is flat for ±window/2 around the true
 * point, so the answer is the middle of the stretch where it stays within `plateau` dB of its maximum.
 *
 * Only meaningful where the neighbourhood is not speech: speech rises and falls by 20–40 dB at every
 * pause, so callers search outside speech only.
 */

export interface StepOptions {
  /** Seconds of levels compared on each side of a candidate point. */
  window: number;
  /** Smallest step accepted as an onset or offset, dB. */
  minStep: number;
  /** dB below the largest step still counted as the same step (the statistic's flat top). */
  plateau: number;
}

export const DEFAULT_STEP: StepOptions = { window: 0.2, minStep: 6, plateau: 3 };

export interface LevelStep {
  /** Seconds: where the level steps. */
  time: number;
  /** dB the median level rose (onset) or fell (offset) there. */
  step: number;
}

function stepAt(levels: LevelTrack, i: number, w: number): number {
  return (median(levels.db.subarray(i, i + w)) ?? NaN) - (median(levels.db.subarray(i - w, i)) ?? NaN);
}

function strongestStep(
  levels: LevelTrack,
  from: number,
  to: number,
  sign: 1 | -1,
  options: StepOptions,
): LevelStep | null {
  const w = Math.max(1, Math.round(options.window / levels.hop));
  const first = Math.max(w, Math.ceil(from / levels.hop));
  const last = Math.min(levels.db.length - w, Math.floor(to / levels.hop));
  if (last < first) return null;
  const steps = new Float64Array(last - first + 1);
  let best = 0;
  for (let i = first; i <= last; i++) {
    steps[i - first] = sign * stepAt(levels, i, w);
    if (steps[i - first]! > steps[best]!) best = i - first;
  }
  const top = steps[best]!;
  if (top < options.minStep) return null;
  let lo = best;
  let hi = best;
  while (lo > 0 && steps[lo - 1]! >= top - options.plateau) lo--;
  while (hi < steps.length - 1 && steps[hi + 1]! >= top - options.plateau) hi++;
  // Frame i starts at i·hop; the boundary between the two windows sits half a frame into frame i.
  return { time: (first + (lo + hi) / 2) * levels.hop + levels.frame / 2 - levels.hop / 2, step: top };
}

/** The largest rise of the median level between `from` and `to` seconds, or null when none reaches minStep. */
export function strongestRise(
  levels: LevelTrack,
  from: number,
  to: number,
  options: StepOptions = DEFAULT_STEP,
): LevelStep | null {
  return strongestStep(levels, from, to, 1, options);
}

/** The largest fall of the median level between `from` and `to` seconds, or null when none reaches minStep. */
export function strongestFall(
  levels: LevelTrack,
  from: number,
  to: number,
  options: StepOptions = DEFAULT_STEP,
): LevelStep | null {
  return strongestStep(levels, from, to, -1, options);
}
