/**
 * Exports of a dub: the ADR cue sheet (CSV, one cue per line in time order) and the editor
 * exports (EDL, FCPXML) with a marker per revoiced line, all on the recording's timebase.
 */
import { secondsToTimecode } from '../../shared/timecode';
import { csvField, inertText } from './csv';
import { renderEdl } from './edl';
import { renderFcpxml } from './fcpxml';
import { cleanText, speakerName } from './text';
import { resolveTimebase } from './timebase';
import type { ExportFile, ExportMedia } from './types';

export const CUE_COLUMNS = [
  'cue',
  'line_id',
  'character',
  'speaker',
  'in_timecode',
  'out_timecode',
  'in_seconds',
  'out_seconds',
  'original_text',
  'corrected_text',
  'state',
  'review_status',
  'voice',
  'notes',
  'timebase',
] as const;

/** One line of the dub as the cue sheet and markers read it. */
export interface DubCueLine {
  id: number;
  speaker: string;
  start: number;
  end: number;
  text: string;
  original_text: string;
  /** original | corrected | voiced (against the current revision). */
  state: string;
  review_status: string;
  effective_voice: string | null;
  notes: Array<{ author: string; created_at: string; text: string }>;
  /** The current revision carries a revoiced rendering of this line. */
  revoiced: boolean;
}

export interface DubExportInput {
  /** The file the editor relinks to (the current revision's download name). */
  fileName: string;
  /** Seconds. */
  duration: number;
  channels: number;
  sampleRate: number;
  lines: DubCueLine[];
  /** The recording's timebase; null: 25 fps non-drop from 00:00:00:00, which the files say. */
  media: ExportMedia | null;
  speakerNames?: Record<string, string>;
}

/**
 * The ADR cue sheet: every line of the dub in time order, numbered from 1, with its character (the
 * speaker's name where the project knows it), in and out timecode on the recording's timebase, the
 * original and corrected text, its state, review status, voice and notes ("author: text", joined by
 * " | ", oldest first). RFC 4180 like the other CSV exports, free text guarded against formulas.
 */
export function renderDubCues(input: DubExportInput): ExportFile {
  const tb = resolveTimebase(input.media);
  const timebase = tb.assumed ? '25 fps non-drop frame from 00:00:00:00 (assumed: no timebase set)' : tb.description;
  const rows: string[][] = [[...CUE_COLUMNS]];
  [...input.lines]
    .sort((a, b) => a.start - b.start || a.id - b.id)
    .forEach((line, i) => {
      rows.push([
        String(i + 1),
        String(line.id),
        inertText(speakerName(line.speaker, input.speakerNames)),
        line.speaker,
        secondsToTimecode(line.start, tb.clock),
        secondsToTimecode(line.end, tb.clock),
        line.start.toFixed(3),
        line.end.toFixed(3),
        inertText(cleanText(line.original_text)),
        inertText(cleanText(line.text)),
        line.state,
        line.review_status,
        line.effective_voice ?? '',
        inertText(line.notes.map((n) => `${cleanText(n.author)}: ${cleanText(n.text)}`).join(' | ')),
        timebase,
      ]);
    });
  const body = rows.map((row) => row.map(csvField).join(',')).join('\r\n') + '\r\n';
  return { body, contentType: 'text/csv; charset=utf-8; header=present', extension: 'cues.csv' };
}

/** The recording exports' input with one segment per revoiced line, so EDL and FCPXML mark only those. */
function revoicedMarks(input: DubExportInput) {
  const revoiced = input.lines.filter((l) => l.revoiced).sort((a, b) => a.start - b.start);
  return {
    session: { id: '', fileName: input.fileName, duration: input.duration, channels: input.channels, sampleRate: input.sampleRate },
    transcript: {
      speakers: [...new Set(input.lines.map((l) => l.speaker))],
      segments: revoiced.map((l) => ({ id: l.id, speaker: l.speaker, start: l.start, end: l.end, text: `${l.text} (was: ${l.original_text})` })),
    },
    media: input.media,
    speakerNames: input.speakerNames,
  };
}

/** CMX3600 EDL over the dub's current revision, a locator per revoiced line (coloured by speaker). */
export function renderDubEdl(input: DubExportInput): ExportFile {
  return { ...renderEdl(revoicedMarks(input)), extension: 'edl' };
}

/** FCPXML 1.10 over the dub's current revision, a marker per revoiced line. */
export function renderDubFcpxml(input: DubExportInput): ExportFile {
  return { ...renderFcpxml(revoicedMarks(input)), extension: 'fcpxml' };
}
