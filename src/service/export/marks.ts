/**
 * Everything an editor export marks: one mark per transcript segment, then the extra markers, then the
 * analysis's moments, by time.
 */
import { cleanText, speakerName } from './text';
import type { ExportInput, ExportMoment } from './types';

export interface Mark {
  start: number;
  end: number;
  /** "segment" for transcript segments, the moment type (select, unusable, trim) for moments, else the marker's kind. */
  kind: string;
  /** Segment id, m1, m2, … for extra markers in input order, moment-<id> for moments. */
  id: string;
  /** Speaker label for segments and moments, '' otherwise. */
  speaker: string;
  /** Marker text: "Name: words" for segments, "Select: reason “words”" for moments, the label otherwise. */
  text: string;
  /** Set on a moment's mark. */
  moment?: ExportMoment;
}

/** "select" → "Select", "off_mic" → "Off mic". */
export function typeLabel(type: string): string {
  const words = cleanText(type.replace(/[_-]+/g, ' '));
  return words ? words[0]!.toUpperCase() + words.slice(1) : 'Moment';
}

/** A moment's one-line text: its type, the reason, and the words of a select. */
export function momentText(moment: ExportMoment): string {
  const reason = cleanText(moment.reason);
  const words = moment.text ? cleanText(moment.text) : '';
  return `${typeLabel(moment.type)}: ${reason || 'no reason given'}${words ? ` “${words}”` : ''}`;
}

export function momentMarks(moments: readonly ExportMoment[] | undefined): Mark[] {
  return (moments ?? []).map((m) => ({
    start: m.start,
    end: Math.max(m.start, m.end),
    kind: cleanText(m.type) || 'moment',
    id: `moment-${cleanText(m.id)}`,
    speaker: m.speaker,
    text: momentText(m),
    moment: m,
  }));
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
  // Stable sort: at equal starts, segments come before extra markers, and those before moments.
  return [...segments, ...extra, ...momentMarks(input.moments)].sort((a, b) => a.start - b.start);
}
