import { secondsToTimecode, type TimecodeClock } from '../../../shared/timecode';
import { cleanText, speakerName } from '../../export/text';
import { NOTE_SEPARATOR, type CueSheetRow } from './columns';

/** A line as the cue sheet shows it. */
export interface CueSheetLine {
  id: number;
  speaker: string;
  start: number;
  /** Where the dub's voice of the line ends (shared/dubbing/cue-out.ts). */
  out: number;
  text: string;
  original_text: string;
  review_status: string;
  notes: Array<{ author: string; text: string }>;
  /** The number of the take the current revision carries for the line, if one was chosen. */
  take: number | null;
}

export function noteCell(note: { author: string; text: string }): string {
  return `${cleanText(note.author)}: ${cleanText(note.text)}`;
}

/**
 * The sheet's rows: lines in time order numbered from 1, timecode on the dub's clock (the frame each
 * instant falls in), text on one line each.
 */
export function cueSheetRows(lines: readonly CueSheetLine[], clock: TimecodeClock, speakerNames: Record<string, string> = {}): CueSheetRow[] {
  return [...lines]
    .sort((a, b) => a.start - b.start || a.id - b.id)
    .map((line, i) => ({
      Cue: String(i + 1),
      Character: cleanText(speakerName(line.speaker, speakerNames)),
      'TC In': secondsToTimecode(line.start, clock),
      'TC Out': secondsToTimecode(line.out, clock),
      'Original Dialogue': cleanText(line.original_text),
      Dialogue: cleanText(line.text),
      Status: line.review_status,
      Notes: line.notes.map(noteCell).join(NOTE_SEPARATOR),
      Take: line.take === null ? '' : String(line.take),
      'Line ID': String(line.id),
    }));
}
