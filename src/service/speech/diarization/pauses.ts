import type { SpeakerTurn, Span } from '../types';

const DB_PER_NEPER = 10 / Math.log(10);

/**
 * The log energy under which a frame counts as quiet: `db` decibels under the speech level, taken as the
 * 90th percentile of the frames in `ranges` ([from, to) frame ranges of the speech spans). Quiet frames
 * carry the background's spectrum more than the voice's.
 */
export function quietThreshold(
  logEnergy: ArrayLike<number>,
  ranges: readonly (readonly [number, number])[],
  db: number,
): number {
  const values: number[] = [];
  for (const [a, b] of ranges) for (let i = a; i < Math.min(b, logEnergy.length); i++) values.push(logEnergy[i]!);
  if (!values.length) return -Infinity;
  values.sort((x, y) => x - y);
  return values[Math.floor(0.9 * (values.length - 1))]! - db / DB_PER_NEPER;
}

/**
 * Splits speech spans at the pauses inside them. A VAD that bridges short silences (as the diarization
 * VAD does, so turns keep their pauses) hands the diarizer spans in which one voice stops and the next
 * starts across a pause; segments straddling such a pause mix two voices. A pause is a run of at least
 * `minPauseFrames` frames under `quiet` (natural-log energy); quiet stretches at a span's edges are
 * trimmed whatever their length. Frame i starts at frameStart(i); spans are in seconds.
 */
export function splitAtPauses(
  spans: Span[],
  logEnergy: ArrayLike<number>,
  quiet: number,
  minPauseFrames: number,
  frameOf: (seconds: number) => number,
  frameStart: (frame: number) => number,
): Span[] {
  const out: Span[] = [];
  for (const span of spans) {
    const a = frameOf(span.start);
    const b = Math.min(logEnergy.length, frameOf(span.end));
    let start = span.start;
    let i = a;
    while (i < b) {
      if (logEnergy[i]! >= quiet) {
        i++;
        continue;
      }
      let j = i + 1;
      while (j < b && logEnergy[j]! < quiet) j++;
      if (j - i >= minPauseFrames || i === a || j === b) {
        const end = i === a ? start : frameStart(i);
        if (end > start) out.push({ start, end });
        start = j === b ? span.end : frameStart(j);
      }
      i = j;
    }
    if (span.end > start) out.push({ start, end: span.end });
  }
  return out;
}

/**
 * Seconds of speech each kept frame stands for: the time to the next kept frame of its run (the turn
 * drawn over it reaches that far), so that clusters are sized by the speech they will label, not by how
 * many of their frames were loud enough to model. `rawIndex` maps kept rows to frame numbers.
 */
export function keptFrameSeconds(
  rawIndex: ArrayLike<number>,
  runs: { from: number; to: number }[],
  hopSeconds: number,
): Float64Array {
  const out = new Float64Array(rawIndex.length);
  for (const run of runs)
    for (let i = run.from; i < run.to; i++)
      out[i] = (i + 1 < run.to ? rawIndex[i + 1]! - rawIndex[i]! : 1) * hopSeconds;
  return out;
}

/**
 * Turns stretched back over the speech spans they came from: a gap between two turns inside one span
 * (a pause left out by `splitAtPauses`) is shared at its midpoint, and the first and last turns in a span
 * reach its edges, so the diarization covers exactly the speech it was given. Turns must be sorted.
 */
export function coverSpans(turns: SpeakerTurn[], spans: Span[]): SpeakerTurn[] {
  const out: SpeakerTurn[] = [];
  let t = 0;
  for (const span of spans) {
    while (t < turns.length && turns[t]!.end <= span.start) t++;
    const inside: SpeakerTurn[] = [];
    while (t < turns.length && turns[t]!.start < span.end) inside.push({ ...turns[t++]! });
    if (!inside.length) continue;
    inside[0]!.start = span.start;
    inside[inside.length - 1]!.end = span.end;
    for (let k = 1; k < inside.length; k++) {
      const middle = (inside[k - 1]!.end + inside[k]!.start) / 2;
      inside[k - 1]!.end = middle;
      inside[k]!.start = middle;
    }
    // Neighbours with the same speaker across a closed pause become one turn (never across spans).
    inside.forEach((turn, k) => {
      const last = out[out.length - 1]!;
      if (k > 0 && last.speaker === turn.speaker) last.end = turn.end;
      else out.push(turn);
    });
  }
  return out;
}
