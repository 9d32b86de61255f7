import type { Span } from '../types';

/**
 * Where a long script meets the recording: the script's words are matched in order to the recognised
 * words (longest common subsequence on normalised tokens), runs of consecutive matches become anchors, and
 * the script is cut inside anchors into stretches short enough for the forced aligner, each with the stretch
 * of audio between its cuts. The recogniser gets about one word in three wrong, but a run of three or more
 * words matching in a row is almost never a coincidence, so its times can be trusted as cut points.
 */

/** DP cells above which a gap is first split at words that occur once on each side (as patience diff does). */
const MAX_CELLS = 4_000_000;

/** Index pairs (script, recognised) of an in-order matching of equal tokens, increasing in both. */
export function alignTokens(a: readonly string[], b: readonly string[]): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  solve(a, b, 0, a.length, 0, b.length, out);
  return out;
}

function solve(a: readonly string[], b: readonly string[], a0: number, a1: number, b0: number, b1: number, out: Array<[number, number]>): void {
  while (a0 < a1 && b0 < b1 && a[a0] === b[b0]) out.push([a0++, b0++]);
  const tail: Array<[number, number]> = [];
  while (a1 > a0 && b1 > b0 && a[a1 - 1] === b[b1 - 1]) tail.push([--a1, --b1]);
  const n = a1 - a0;
  const m = b1 - b0;
  if (n > 0 && m > 0) {
    if (n * m <= MAX_CELLS) lcs(a, b, a0, a1, b0, b1, out);
    else {
      // Too big for the table: split at words unique on both sides, kept in order (longest increasing run).
      let pa = a0;
      let pb = b0;
      for (const [i, j] of uniqueAnchors(a, b, a0, a1, b0, b1)) {
        solve(a, b, pa, i, pb, j, out);
        out.push([i, j]);
        pa = i + 1;
        pb = j + 1;
      }
      // Without any unique shared word the gap stays unmatched; with some, the rest is solved in pieces.
      if (pa > a0) solve(a, b, pa, a1, pb, b1, out);
    }
  }
  for (let k = tail.length - 1; k >= 0; k--) out.push(tail[k]!);
}

function lcs(a: readonly string[], b: readonly string[], a0: number, a1: number, b0: number, b1: number, out: Array<[number, number]>): void {
  const n = a1 - a0;
  const m = b1 - b0;
  const w = m + 1;
  // len[i*w + j]: LCS of a[a0+i..a1) and b[b0+j..b1); min(n, m) ≤ 2000 here, so 16 bits suffice.
  const len = new Uint16Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--) {
    const ai = a[a0 + i];
    for (let j = m - 1; j >= 0; j--) {
      len[i * w + j] = ai === b[b0 + j] ? len[(i + 1) * w + j + 1]! + 1 : Math.max(len[(i + 1) * w + j]!, len[i * w + j + 1]!);
    }
  }
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[a0 + i] === b[b0 + j]) out.push([a0 + i++, b0 + j++]);
    else if (len[(i + 1) * w + j]! >= len[i * w + j + 1]!) i++;
    else j++;
  }
}

function uniqueAnchors(a: readonly string[], b: readonly string[], a0: number, a1: number, b0: number, b1: number): Array<[number, number]> {
  const count = (s: readonly string[], from: number, to: number) => {
    const seen = new Map<string, number>();
    for (let k = from; k < to; k++) seen.set(s[k]!, seen.has(s[k]!) ? -1 : k);
    return seen;
  };
  const inA = count(a, a0, a1);
  const inB = count(b, b0, b1);
  const pairs: Array<[number, number]> = [];
  for (const [word, i] of inA) {
    const j = inB.get(word);
    if (i >= 0 && j !== undefined && j >= 0) pairs.push([i, j]);
  }
  pairs.sort((x, y) => x[0] - y[0]);
  return longestIncreasing(pairs);
}

/** The longest subsequence of pairs (sorted by first) whose second index increases (patience sorting). */
function longestIncreasing(pairs: Array<[number, number]>): Array<[number, number]> {
  const tails: number[] = [];
  const prev = new Int32Array(pairs.length).fill(-1);
  for (let k = 0; k < pairs.length; k++) {
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (pairs[tails[mid]!]![1] < pairs[k]![1]) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0) prev[k] = tails[lo - 1]!;
    tails[lo] = k;
  }
  const out: Array<[number, number]> = [];
  for (let k = tails.length ? tails[tails.length - 1]! : -1; k >= 0; k = prev[k]!) out.push(pairs[k]!);
  return out.reverse();
}

/** A run of script words matching recognised words one after the other. */
export interface AnchorRun {
  script: number;
  recognized: number;
  length: number;
}

/** Runs of at least `minRun` consecutive matches. */
export function anchorRuns(pairs: ReadonlyArray<readonly [number, number]>, minRun = 3): AnchorRun[] {
  const runs: AnchorRun[] = [];
  let k = 0;
  while (k < pairs.length) {
    let end = k + 1;
    while (end < pairs.length && pairs[end]![0] === pairs[end - 1]![0] + 1 && pairs[end]![1] === pairs[end - 1]![1] + 1) end++;
    if (end - k >= minRun) runs.push({ script: pairs[k]![0], recognized: pairs[k]![1], length: end - k });
    k = end;
  }
  return runs;
}

/** Script words [from, to) to be aligned to the audio [start, end). */
export interface Stretch extends Span {
  from: number;
  to: number;
}

export interface StretchOptions {
  /** Preferred shortest stretch, seconds (a cut is looked for between this and `max`). Default 8. */
  min?: number;
  /** Longest stretch when anchors allow it, seconds. Default 30 (the aligner's comfortable range). */
  max?: number;
}

interface Cut {
  /** First script word after the cut. */
  word: number;
  time: number;
  /** Silence between the two recognised words the cut falls between (a pause is the safest place). */
  gap: number;
}

/**
 * Stretches covering all `words` script words and the whole recording, cut only between two words of an
 * anchor run (both recognised correctly, so the cut time is between them). Among the cuts between `min`
 * and `max` seconds after the last one, the one at the longest pause wins; where anchors leave no cut in
 * that window, the stretch runs to the next cut there is.
 */
export function planStretches(runs: readonly AnchorRun[], recognized: readonly Span[], words: number, duration: number, options: StretchOptions = {}): Stretch[] {
  const min = options.min ?? 8;
  const max = options.max ?? 30;
  const cuts: Cut[] = [];
  for (const run of runs) {
    for (let k = 0; k + 1 < run.length; k++) {
      const left = recognized[run.recognized + k]!;
      const right = recognized[run.recognized + k + 1]!;
      const gap = Math.max(0, right.start - left.end);
      cuts.push({ word: run.script + k + 1, time: left.end + gap / 2, gap });
    }
  }
  const stretches: Stretch[] = [];
  let from = 0;
  let start = 0;
  let c = 0;
  while (from < words) {
    while (c < cuts.length && (cuts[c]!.word <= from || cuts[c]!.time <= start)) c++;
    let chosen: Cut | null = null;
    if (duration - start > max) {
      for (let k = c; k < cuts.length && cuts[k]!.time - start <= max; k++) {
        const cut = cuts[k]!;
        if (cut.time - start >= min && (!chosen || cut.gap >= chosen.gap)) chosen = cut;
      }
      if (!chosen && c < cuts.length) {
        // No cut in the window: the first one beyond it (none: the stretch runs to the end).
        let k = c;
        while (k < cuts.length && cuts[k]!.time - start < min) k++;
        chosen = cuts[k] ?? null;
      }
    }
    if (!chosen || chosen.word >= words) {
      stretches.push({ from, to: words, start, end: duration });
      break;
    }
    stretches.push({ from, to: chosen.word, start, end: chosen.time });
    from = chosen.word;
    start = chosen.time;
  }
  return stretches;
}
