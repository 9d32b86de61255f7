/**
 * Looping over one line while its words are edited: where to jump when the playhead leaves the line
 * (forward past its end → its start; reverse before its start → its end), or null to let it play.
 */
export function loopJump(t: number, rate: number, start: number, end: number): number | null {
  if (rate > 0 && (t >= end || t < start - 0.5)) return start;
  if (rate < 0 && (t <= start || t > end + 0.5)) return end;
  return null;
}
