/**
 * CSV (RFC 4180: comma separated, CRLF line ends, fields quoted when they hold a comma, quote or line
 * break, quotes doubled). One row per transcript segment and per extra marker, by start time. The
 * `timebase` column says which clock the timecode columns use, including when it is the assumed default.
 */
import { secondsToTimecode } from '../../shared/timecode';
import { collectMarks } from './marks';
import { speakerName } from './text';
import { resolveTimebase } from './timebase';
import type { ExportFile, ExportInput } from './types';

export const CSV_COLUMNS = [
  'id',
  'kind',
  'speaker',
  'speaker_name',
  'start_seconds',
  'end_seconds',
  'start_timecode',
  'end_timecode',
  'text',
  'timebase',
] as const;

export function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/**
 * Spreadsheets run cells that start with = + - @ as formulas; a leading apostrophe keeps free text
 * (transcripts, names) as text. Numbers and timecodes are ours and never start that way.
 */
export function inertText(value: string): string {
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

export function renderCsv(input: ExportInput): ExportFile {
  const tb = resolveTimebase(input.media);
  const timebase = tb.assumed
    ? '25 fps non-drop frame from 00:00:00:00 (assumed: no timebase set)'
    : tb.description;
  const rows: string[][] = [[...CSV_COLUMNS]];
  for (const mark of collectMarks(input)) {
    const segment = mark.kind === 'segment';
    // For segments the text column holds the words alone; the speaker has its own columns.
    const text = segment ? mark.text.slice(mark.text.indexOf(': ') + 2) : mark.text;
    rows.push([
      mark.id,
      mark.kind,
      mark.speaker,
      segment ? inertText(speakerName(mark.speaker, input.speakerNames)) : '',
      mark.start.toFixed(3),
      mark.end.toFixed(3),
      secondsToTimecode(mark.start, tb.clock),
      secondsToTimecode(mark.end, tb.clock),
      inertText(text),
      timebase,
    ]);
  }
  const body = rows.map((row) => row.map(csvField).join(',')).join('\r\n') + '\r\n';
  return { body, contentType: 'text/csv; charset=utf-8; header=present', extension: 'csv' };
}
