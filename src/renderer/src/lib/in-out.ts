/**
 * In/out points as an editor uses them: the range they make (an in point alone runs to the end, an out
 * point alone from the start), what playing that range does when the playhead reaches its end, and the
 * next/previous marker from the playhead. Pure, so the rules are tested without a browser.
 */

export interface TimeRange {
  start: number;
  end: number;
}

/** The range of the in/out points, or null when neither is set or the range is empty. */
export function markedRange(inPoint: number | null, outPoint: number | null, duration: number): TimeRange | null {
  if (inPoint === null && outPoint === null) return null;
  const start = Math.max(0, Math.min(inPoint ?? 0, duration));
  const end = Math.max(0, Math.min(outPoint ?? duration, duration));
  return end > start ? { start, end } : null;
}

/**
 * Playing a range: where the playhead goes when it reaches the range's end (`start` when looping), `stop`
 * to stop at the end, or null to keep playing. A playhead that left the range some other way (a click
 * elsewhere, a jump) ends the range play: `leave`.
 */
export function rangeStep(t: number, range: TimeRange, loop: boolean): number | 'stop' | 'leave' | null {
  // The media clock runs a frame or so behind a seek: a little before the start still counts as inside.
  if (t < range.start - 0.25 || t > range.end + 0.5) return 'leave';
  if (t >= range.end) return loop ? range.start : 'stop';
  return null;
}

/** Where a marker sits on the timeline for jumping (a span's start; a shift drawn as a point, its point). */
export interface Jumpable {
  start: number;
  at?: number;
}

/**
 * The next (dir 1) or previous (dir −1) marker time from `t`. A marker within `gap` seconds of the playhead
 * is the one the playhead is on, not the next one, so repeated presses walk on (and "previous" while
 * playing does not keep landing on the marker just passed).
 */
export function nextMarkerTime(markers: readonly Jumpable[], t: number, dir: 1 | -1, gap = 0.05): number | null {
  let best: number | null = null;
  for (const m of markers) {
    const at = m.at ?? m.start;
    if (dir > 0 ? at > t + gap && (best === null || at < best) : at < t - gap && (best === null || at > best)) best = at;
  }
  return best;
}
