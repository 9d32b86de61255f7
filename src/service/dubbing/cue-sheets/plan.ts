import { DUB_LINE_TEXT_MAX, LineText, REVIEW_STATUSES, type ReviewStatus } from '../../../shared/schemas';
import { timecodeToSeconds, type TimecodeClock } from '../../../shared/timecode';
import { checkRetiming } from '../line-rules';
import { EDITABLE_COLUMNS, NOTE_SEPARATOR, type CueSheetColumn, type CueSheetRow, type ReadSheet } from './columns';

/** A note's length limit, as for a note added with POST …/notes. */
export const NOTE_MAX = 2000;

/** A line as the import reads and changes it. */
export interface PlannedCueLine {
  id: number;
  start: number;
  end: number;
  text: string;
  reviewStatus: ReviewStatus;
}

/** What one row changes on its line; fields left out stay as they are. */
export interface CueChange {
  row: number;
  cue: number;
  lineId: number;
  text?: string;
  start?: number;
  end?: number;
  reviewStatus?: ReviewStatus;
  /** New notes, in order, added after the line's notes. */
  notes: string[];
}

/** A row that cannot be applied, and why. */
export interface RowProblem {
  row: number;
  cue: string | null;
  column: CueSheetColumn | null;
  code: string;
  message: string;
}

export interface CueSheetPlan {
  changes: CueChange[];
  problems: RowProblem[];
  /** Rows read (blank rows not counted). */
  rows: number;
}

/** "Needs changes", "NEEDS-CHANGES" and "needs_changes" all name the same status. */
export function parseStatus(cell: string): ReviewStatus | null {
  const key = cell.trim().toLowerCase().replace(/[\s-]+/g, '_');
  return (REVIEW_STATUSES as readonly string[]).includes(key) ? (key as ReviewStatus) : null;
}

/**
 * Reads an imported sheet against the dub as a sheet of it would read now (`current`, the export's rows in
 * time order, and `lines`, the same lines in the same order): row by row, what changes (cells of the
 * editable columns that differ from the export's) and every row that cannot be applied. Timing is checked
 * against the neighbours as the rows before it leave them. Rows the sheet leaves out change nothing.
 */
export function planCueSheetImport(sheet: ReadSheet, current: readonly CueSheetRow[], lines: readonly PlannedCueLine[], clock: TimecodeClock, duration: number): CueSheetPlan {
  const problems: RowProblem[] = [];
  const changes: CueChange[] = [];
  const working = lines.map((l) => ({ id: l.id, start: l.start, end: l.end }));
  const seen = new Map<number, number>();
  for (const { row, cells } of sheet.rows) {
    const rawCue = cells.Cue ?? '';
    const fail = (column: CueSheetColumn | null, code: string, message: string) => problems.push({ row, cue: rawCue || null, column, code, message });
    const before = problems.length;
    if (!/^\d{1,6}$/.test(rawCue)) {
      fail('Cue', 'cue_invalid', rawCue ? `"${rawCue}" is not a cue number (1 to ${current.length})` : 'The row has no cue number');
      continue;
    }
    const cue = Number(rawCue);
    const index = cue - 1;
    const now = current[index];
    const line = lines[index];
    if (!now || !line) {
      fail('Cue', 'cue_unknown', `The dub has no cue ${cue}; its cues are 1 to ${current.length}`);
      continue;
    }
    if (seen.has(cue)) {
      fail('Cue', 'cue_duplicate', `Cue ${cue} is also on row ${seen.get(cue)}`);
      continue;
    }
    seen.set(cue, row);
    if (cells['Line ID'] && cells['Line ID'] !== now['Line ID']) {
      fail('Line ID', 'cue_moved', `Cue ${cue} is line ${now['Line ID']} now, the sheet says line ${cells['Line ID']}: lines were split or merged since the sheet was exported; export it again`);
      continue;
    }
    for (const [column, value] of Object.entries(cells) as Array<[CueSheetColumn, string]>) {
      if (!EDITABLE_COLUMNS.has(column) && column !== 'Cue' && value !== now[column]) {
        fail(column, 'read_only', `${column} cannot be changed from a cue sheet (it is "${now[column]}", the sheet says "${value}")`);
      }
    }
    const change: CueChange = { row, cue, lineId: line.id, notes: [] };

    if (cells.Dialogue !== undefined && cells.Dialogue !== now.Dialogue) {
      const text = LineText.safeParse(cells.Dialogue);
      if (text.success) change.text = text.data;
      else fail('Dialogue', 'text_invalid', cells.Dialogue.trim() === '' ? 'The dialogue is empty' : `The dialogue must be 1 to ${DUB_LINE_TEXT_MAX} characters`);
    }
    if (cells.Status !== undefined && cells.Status !== now.Status) {
      const status = parseStatus(cells.Status);
      if (status) {
        if (status !== line.reviewStatus) change.reviewStatus = status;
      } else fail('Status', 'status_invalid', `"${cells.Status}" is not a status; use one of ${REVIEW_STATUSES.join(', ')}`);
    }
    if (cells.Notes !== undefined && cells.Notes !== now.Notes) {
      const had = now.Notes;
      if (had === '') change.notes = cells.Notes.split(NOTE_SEPARATOR).map((n) => n.trim()).filter(Boolean);
      else if (cells.Notes.startsWith(had + NOTE_SEPARATOR)) change.notes = cells.Notes.slice(had.length + NOTE_SEPARATOR.length).split(NOTE_SEPARATOR).map((n) => n.trim()).filter(Boolean);
      else fail('Notes', 'notes_changed', `Notes already on the line cannot be changed or removed from a cue sheet; add new ones after them, separated by "${NOTE_SEPARATOR.trim()}"`);
    }

    const long = change.notes.find((n) => n.length > NOTE_MAX);
    if (long) fail('Notes', 'note_too_long', `A note is at most ${NOTE_MAX} characters; one added here has ${long.length}`);

    let start = line.start;
    let end = line.end;
    for (const column of ['TC In', 'TC Out'] as const) {
      const cell = cells[column];
      if (cell === undefined || cell === now[column]) continue;
      try {
        const seconds = timecodeToSeconds(cell, clock);
        if (column === 'TC In') start = seconds;
        else end = seconds;
      } catch (error) {
        fail(column, 'timecode_invalid', (error as Error).message);
      }
    }
    if (problems.length === before && (start !== line.start || end !== line.end)) {
      const checked = checkRetiming(working, line.id, start, end, duration);
      if (checked.ok) {
        change.start = checked.start;
        change.end = checked.end;
      } else {
        for (const i of checked.issues) fail(i.loc.at(-1) === 'start' ? 'TC In' : 'TC Out', String(i.type), i.msg);
      }
    }
    if (problems.length > before) continue;
    if (change.start !== undefined) Object.assign(working[index]!, { start: change.start, end: change.end });
    if (change.text !== undefined || change.start !== undefined || change.reviewStatus !== undefined || change.notes.length) changes.push(change);
  }
  return { changes, problems, rows: sheet.rows.length };
}
