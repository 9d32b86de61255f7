/**
 * A piecewise-linear time map: anchors pairing a time in a source signal with the time it should land on in
 * the target. Between anchors time runs at a constant rate, so each word of a reading is stretched or squashed
 * on its own to meet the word it follows.
 */
export interface TimeAnchor {
  source: number;
  target: number;
}

export interface WordSpan {
  start: number;
  end: number;
}

/** Shortest and longest duration factor a segment may get: beyond these, speech becomes a click or a drone. */
export const SEGMENT_RATIO_LIMITS = { shortest: 0.25, longest: 4 } as const;
/** Anchors closer than this (seconds, on either side) are merged: a zero-length segment has no rate. */
const MIN_SEGMENT = 0.005;

/**
 * The anchors that warp `source` words onto `target` words, word by word (each word's start and end), framed
 * by the source's ends: 0 maps to 0 shifted by the first word's lead, `sourceLength` to the last target end
 * plus the source's own tail. With different word counts only the first onset and last end are paired (the
 * words cannot be matched one to one), so the speech as a whole still spans the original's. Anchors that
 * would run backwards or give a segment a rate outside SEGMENT_RATIO_LIMITS are dropped.
 */
export function wordTimeMap(source: readonly WordSpan[], target: readonly WordSpan[], sourceLength: number): TimeAnchor[] {
  const pairs: TimeAnchor[] = [];
  if (source.length > 0 && target.length > 0) {
    if (source.length === target.length) {
      source.forEach((s, i) => {
        pairs.push({ source: s.start, target: target[i]!.start });
        pairs.push({ source: s.end, target: target[i]!.end });
      });
    } else {
      pairs.push({ source: source[0]!.start, target: target[0]!.start });
      pairs.push({ source: source[source.length - 1]!.end, target: target[target.length - 1]!.end });
    }
  }
  const first = pairs[0];
  const last = pairs[pairs.length - 1];
  // The lead before the first word and the tail after the last keep their own length (silence and breath).
  const anchors: TimeAnchor[] = [{ source: 0, target: first ? Math.max(0, first.target - first.source) : 0 }];
  for (const pair of pairs) {
    const prev = anchors[anchors.length - 1]!;
    const ds = pair.source - prev.source;
    const dt = pair.target - prev.target;
    if (ds < MIN_SEGMENT || dt < MIN_SEGMENT) continue;
    const ratio = dt / ds;
    if (ratio < SEGMENT_RATIO_LIMITS.shortest || ratio > SEGMENT_RATIO_LIMITS.longest) continue;
    anchors.push(pair);
  }
  const end = anchors[anchors.length - 1]!;
  const tail = Math.max(0, sourceLength - end.source);
  if (tail >= MIN_SEGMENT) anchors.push({ source: sourceLength, target: end.target + tail });
  else if (last === undefined && sourceLength > 0) anchors.push({ source: sourceLength, target: sourceLength });
  return anchors;
}

/** Where source time `t` lands (linear between anchors, the end segments' rates continued beyond them). */
export function mapTime(anchors: readonly TimeAnchor[], t: number): number {
  if (anchors.length === 0) return t;
  if (anchors.length === 1) return t - anchors[0]!.source + anchors[0]!.target;
  let i = 1;
  while (i < anchors.length - 1 && anchors[i]!.source < t) i++;
  const a = anchors[i - 1]!;
  const b = anchors[i]!;
  return a.target + ((t - a.source) * (b.target - a.target)) / (b.source - a.source);
}

/** The anchors with every target time scaled by `factor` about zero (to fit a slot that is too short). */
export function scaleTargets(anchors: readonly TimeAnchor[], factor: number): TimeAnchor[] {
  return anchors.map((a) => ({ source: a.source, target: a.target * factor }));
}

/** Length of the target the anchors span. */
export function targetLength(anchors: readonly TimeAnchor[]): number {
  return anchors.length ? anchors[anchors.length - 1]!.target : 0;
}
