import type { Span } from '../types';

/** A run of consecutive frames [first, last] whose score stayed at or above the exit threshold. */
export interface Run {
  first: number;
  last: number;
  /** Largest score in the run. */
  peak: number;
}

/**
 * Two-threshold detection: a run is a maximal stretch of frames scoring ≥ `exit` that holds at least
 * one frame ≥ `enter`. The high threshold decides *whether* something happened; the low one lets the run
 * reach out over the frames where the sound is weaker (its onset and decay, or where speech masks it)
 * without flickering on and off around a single threshold.
 */
export function hysteresisRuns(scores: ArrayLike<number>, enter: number, exit: number): Run[] {
  if (exit > enter) throw new Error(`exit threshold ${exit} is above enter threshold ${enter}`);
  const runs: Run[] = [];
  let i = 0;
  while (i < scores.length) {
    if (scores[i]! < exit) {
      i++;
      continue;
    }
    const first = i;
    let peak = 0;
    while (i < scores.length && scores[i]! >= exit) peak = Math.max(peak, scores[i++]!);
    if (peak >= enter) runs.push({ first, last: i - 1, peak });
  }
  return runs;
}

/** Joins spans (sorted by start) whose gap is below `maxGap` seconds; `merge` combines their payloads. */
export function mergeClose<T extends Span>(spans: T[], maxGap: number, merge: (a: T, b: T) => T): T[] {
  const out: T[] = [];
  for (const span of spans) {
    const last = out[out.length - 1];
    if (last && span.start - last.end < maxGap) out[out.length - 1] = merge(last, span);
    else out.push(span);
  }
  return out;
}
