import { CUE_SHEET_COLUMN_NAMES } from '../../../shared/schemas/cue-sheets';

/**
 * The cue sheet's layout, shared by its CSV and xlsx forms: one header row, then one cue per row in time
 * order. No published specification of EdiCue's CSV columns was found, so the header names the fields in
 * the words ADR tools match on when they map an imported sheet's columns (cue, character, timecode in and
 * out, dialogue, notes); see docs/dubbing-cues-and-recording.md.
 */
export const CUE_SHEET_COLUMNS = CUE_SHEET_COLUMN_NAMES;
export type CueSheetColumn = (typeof CUE_SHEET_COLUMNS)[number];

/** The columns an import may change; the others say where a line is and what it was, and must stay. */
export const EDITABLE_COLUMNS: ReadonlySet<CueSheetColumn> = new Set(['TC In', 'TC Out', 'Dialogue', 'Status', 'Notes']);

/** One cue as a sheet shows it: every cell as text. */
export type CueSheetRow = Record<CueSheetColumn, string>;

/** A row read back from a sheet: its row number in the sheet (the header is row 1) and the cells it has. */
export interface ReadRow {
  row: number;
  cells: Partial<Record<CueSheetColumn, string>>;
}

/** What a read sheet holds: the known columns it has, and its cue rows (blank rows left out). */
export interface ReadSheet {
  columns: CueSheetColumn[];
  rows: ReadRow[];
}

/** Joins a line's notes into one cell, oldest first; the import reads new notes after them. */
export const NOTE_SEPARATOR = ' | ';
