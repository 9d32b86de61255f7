/** Everything an editor export marks: one mark per transcript segment, then the extra markers, by time. */
import { cleanText, speakerName } from './text';
import type { ExportInput } from './types';

export interface Mark {
  start: number;
  end: number;
  /** "segment" for transcript segments, else the marker's kind. */
  kind: string;
  /** Segment id, or m1, m2, … for extra markers in input order. */
  id: string;
  /** Speaker label for segments, '' otherwise. */
  speaker: string;
  /** Marker text: "Name: words" for segments, the label otherwise. */
  text: string;
}

export function collectMarks(input: ExportInput): Mark[] {
  const segments: Mark[] = input.transcript.segments
    .filter((s) => cleanText(s.text).length > 0)
    .map((s) => ({
      start: s.start,
      end: Math.max(s.start, s.end),
      kind: 'segment',
      id: String(s.id),
      speaker: s.speaker,
      text: `${speakerName(s.speaker, input.speakerNames)}: ${cleanText(s.text)}`,
    }));
  const extra: Mark[] = (input.markers ?? []).map((m, i) => ({
    start: m.start,
    end: Math.max(m.start, m.end),
    kind: cleanText(m.kind) || 'marker',
    id: `m${i + 1}`,
    speaker: '',
    text: cleanText(m.label) || cleanText(m.kind) || 'marker',
  }));
  // Stable sort: at equal starts, segments come before extra markers.
  return [...segments, ...extra].sort((a, b) => a.start - b.start);
}
