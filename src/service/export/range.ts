/**
 * An export of part of a recording (the studio's in→out points, `start`/`end` on the export route): the
 * lines, words, markers and moments inside the range, cut at its edges. Times stay the recording's own (the
 * range's subtitles and markers line up with the original and its timecode); the editor formats make their
 * clip span the range (`input.range`).
 */
import { InvalidInputError, issue } from '../errors';
import { cleanText } from './text';
import type { ExportInput } from './types';

export interface ExportRange {
  /** Seconds from the start of the recording. */
  start: number;
  end: number;
}

/** A word belongs to the side of a cut its middle is on, so a word crossing the in point is in one export. */
function inside(start: number, end: number, range: ExportRange): boolean {
  const mid = (start + Math.max(start, end)) / 2;
  return mid >= range.start && mid < range.end;
}

/** Overlap of a span (or a point) with the range. */
function overlaps(start: number, end: number, range: ExportRange): boolean {
  return end > start ? start < range.end && end > range.start : start >= range.start && start <= range.end;
}

const clip = (t: number, range: ExportRange) => Math.min(range.end, Math.max(range.start, t));

export function exportInRange(input: ExportInput, range: ExportRange): ExportInput {
  const segments = input.transcript.segments.flatMap((s) => {
    if (!overlaps(s.start, s.end, range)) return [];
    if (!s.words?.length) return [{ ...s, start: clip(s.start, range), end: clip(s.end, range) }];
    const words = s.words.filter((w) => inside(w.start, w.end, range));
    if (words.length === 0) return [];
    // Cut lines keep only their words in the range; a whole line keeps its text as it is.
    const text = words.length === s.words.length ? s.text : cleanText(words.map((w) => w.word.trim()).join(' '));
    return [
      {
        ...s,
        start: clip(s.start, range),
        end: clip(s.end, range),
        text,
        words: words.map((w) => ({ ...w, start: clip(w.start, range), end: clip(w.end, range) })),
      },
    ];
  });
  const kept = new Set(segments.map((s) => s.id));
  const cut = <T extends { start: number; end: number }>(items: readonly T[] | undefined): T[] | undefined =>
    items?.filter((m) => overlaps(m.start, m.end, range)).map((m) => ({ ...m, start: clip(m.start, range), end: clip(m.end, range) }));
  return {
    ...input,
    // The recording's speakers all stay listed: colours and "Name:" prefixes are the same as in a whole export.
    transcript: { speakers: input.transcript.speakers, segments },
    markers: cut(input.markers),
    moments: cut(input.moments),
    lines: input.lines?.filter((l) => kept.has(l.id)),
    range,
  };
}

/**
 * The range a request asks for (`start`/`end` query, seconds), or null for the whole recording. An end past
 * the recording's end is taken as its end (players and peaks round the length differently); a start at or
 * past the end, or an end not after the start, is refused with the field located.
 */
export function requestedRange(query: { start?: number; end?: number }, duration: number): ExportRange | null {
  if (query.start === undefined && query.end === undefined) return null;
  const start = query.start ?? 0;
  if (start >= duration)
    throw new InvalidInputError([
      issue(['start'], `start must be before the end of the recording (${duration} s)`, 'less_than', query.start, { lt: duration }),
    ]);
  if (query.end !== undefined && query.end <= start)
    throw new InvalidInputError([issue(['end'], `end must be after start (${start} s)`, 'greater_than', query.end, { gt: start })]);
  return { start, end: Math.min(query.end ?? duration, duration) };
}
