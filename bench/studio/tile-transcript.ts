import type { Transcript, TranscriptSegment } from '../../src/service/speech/types';

/**
 * A long transcript made by repeating a real one every `period` seconds until `duration`: segment and
 * word times are shifted by the repeat's offset, segment ids renumbered in order, speakers and voice
 * profiles kept. Segments that would run past `duration` are dropped whole, so no segment is cut.
 * Used by the studio benchmark, which needs an hour of realistic transcript without an hour of ASR.
 */
export function tileTranscript(piece: Transcript, duration: number, period = piece.duration): Transcript {
  if (!(period > 0)) throw new Error('tileTranscript: the period must be positive');
  const firstId = piece.segments[0]?.id ?? 0;
  const segments: TranscriptSegment[] = [];
  for (let offset = 0; offset < duration && piece.segments.length > 0; offset += period) {
    for (const segment of piece.segments) {
      if (segment.end + offset > duration) break;
      segments.push({
        ...segment,
        id: firstId + segments.length,
        start: segment.start + offset,
        end: segment.end + offset,
        words: segment.words.map((w) => ({ ...w, start: w.start + offset, end: w.end + offset })),
      });
    }
  }
  return {
    ...piece,
    duration,
    segments,
    text: segments
      .map((s) => s.text.trim())
      .filter(Boolean)
      .join(' '),
  };
}
