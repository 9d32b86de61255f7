import type { Span, SpeakerTurn, Transcript, TranscriptSegment } from '../speech/types';

/**
 * Time extents of `diarized_json` segments. A diarized segment stands for a stretch of one speaker's talk,
 * so it spans the speaker's turn as the diarizer heard it (speech-activity bounds), not only first word
 * start to last word end: on meeting audio the recognizer writes no words over much of the speech
 * (back-channels, hesitations, quiet passages), and a segment cut to its words leaves that speech to no one
 * (bench/diarization/README.md).
 *
 * Each segment is widened by the turns of its own speaker that overlap it, then clipped so that segments
 * stay in order and never overlap: it starts no earlier than the previous segment's (widened) end and ends
 * no later than the next segment's first word. A turn in which the recognizer wrote nothing gets no
 * segment of its own (an empty-text segment would read as a blank line to OpenAI clients); its speech is
 * covered only where a neighbouring segment of the same speaker reaches into it. Without turns (no
 * diarizer) the extents are the words'.
 */
export function diarizedExtents(segments: ReadonlyArray<Pick<TranscriptSegment, 'start' | 'end' | 'speaker'>>, turns: readonly SpeakerTurn[]): Span[] {
  const order = [...turns].sort((a, b) => a.start - b.start);
  const out: Span[] = [];
  let previousEnd = -Infinity;
  segments.forEach((seg, i) => {
    let start = seg.start;
    let end = seg.end;
    for (const t of order) {
      if (t.start >= seg.end) break;
      if (t.speaker !== seg.speaker || t.end <= seg.start) continue;
      start = Math.min(start, t.start);
      end = Math.max(end, t.end);
    }
    const next = segments[i + 1];
    start = Math.max(start, Math.min(previousEnd, seg.start));
    if (next) end = Math.min(end, Math.max(next.start, seg.end));
    out.push({ start: round3(start), end: round3(end) });
    previousEnd = Math.max(previousEnd, end);
  });
  return out;
}

/**
 * The diarizer's turns under the names known speakers gave the transcript's labels (`after.speakers` is
 * `before.speakers` renamed, same order). Voices that said no recognised word keep their labels.
 */
export function renamedTurns(turns: readonly SpeakerTurn[], before: Transcript, after: Transcript): SpeakerTurn[] {
  const to = new Map(before.speakers.map((label, i) => [label, after.speakers[i] ?? label]));
  return turns.map((t) => ({ ...t, speaker: to.get(t.speaker) ?? t.speaker }));
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}
