/**
 * Where a dub's line ends as the dub carries it. A revoice may borrow the quiet after a line when its reading
 * is too long for the slot (flag `borrowed_silence`): the new voice then sounds past the line's `end`. The
 * cue sheet's out, the editor exports' markers and the studio's out all use this end, so none of them says
 * the line ends where its voice is still speaking. Lines not voiced at their current text and timing end
 * at `end`.
 */
export function cueOut(line: { end: number; state: string; render: { speech: { end: number } } | null }): number {
  if (line.state !== 'voiced' || !line.render) return line.end;
  return Math.max(line.end, line.render.speech.end);
}
