import { describe, expect, it } from 'vitest';
import type { ReadSheet } from './columns';
import { parseStatus, planCueSheetImport, type PlannedCueLine } from './plan';
import { cueSheetRows, type CueSheetLine } from './rows';

const CLOCK = { frameRate: '25' as const, dropFrame: false, startTimecode: '10:00:00:00' };
const line = (id: number, start: number, end: number, fields: Partial<CueSheetLine> = {}): CueSheetLine => ({
  id,
  speaker: 'S1',
  start,
  out: end,
  text: `Line ${id}.`,
  original_text: `Line ${id}.`,
  review_status: 'todo',
  notes: [],
  take: null,
  ...fields,
});
const LINES = [line(1, 1, 2), line(5, 3, 4, { notes: [{ author: 'ada', text: 'soft' }] }), line(3, 5, 6)];
const CURRENT = cueSheetRows(LINES, CLOCK);
const PLANNED: PlannedCueLine[] = LINES.map((l) => ({ id: l.id, start: l.start, end: l.out, text: l.text, reviewStatus: 'todo' }));
const sheetOf = (edit: (rows: Array<Record<string, string>>) => void): ReadSheet => {
  const rows = CURRENT.map((r) => ({ ...r }) as Record<string, string>);
  edit(rows);
  return { columns: Object.keys(CURRENT[0]!) as ReadSheet['columns'], rows: rows.map((cells, i) => ({ row: i + 2, cells })) };
};
const plan = (sheet: ReadSheet) => planCueSheetImport(sheet, CURRENT, PLANNED, CLOCK, 60);

describe('planCueSheetImport', () => {
  it('changes nothing for the sheet as exported', () => {
    expect(plan(sheetOf(() => {}))).toEqual({ changes: [], problems: [], rows: 3 });
  });

  it('reads text, timing, status and new notes by cue number', () => {
    const result = plan(
      sheetOf((rows) => {
        rows[0]!.Dialogue = '  New words. ';
        rows[1]!['TC In'] = '10:00:02:15';
        rows[1]!.Notes = 'ada: soft | louder | again';
        rows[2]!.Status = 'Needs Changes';
      }),
    );
    expect(result.problems).toEqual([]);
    expect(result.changes).toEqual([
      { row: 2, cue: 1, lineId: 1, text: 'New words.', notes: [] },
      { row: 3, cue: 2, lineId: 5, start: 2.6, end: 4, notes: ['louder', 'again'] },
      { row: 4, cue: 3, lineId: 3, reviewStatus: 'needs_changes', notes: [] },
    ]);
  });

  it('reports every row it cannot apply, with its row and column', () => {
    const result = plan(
      sheetOf((rows) => {
        rows[0]!['TC Out'] = '10:00:03:10'; // crosses cue 2's start
        rows[1]!.Notes = 'something else';
        rows[2]!['Original Dialogue'] = 'Changed.';
        rows.push({ ...rows[2]!, Cue: 'x' });
      }),
    );
    expect(result.changes).toEqual([]);
    expect(result.problems.map((p) => [p.row, p.column, p.code])).toEqual([
      [2, 'TC Out', 'line_overlap'],
      [3, 'Notes', 'notes_changed'],
      [4, 'Original Dialogue', 'read_only'],
      [5, 'Cue', 'cue_invalid'],
    ]);
  });

  it('checks timing against the neighbours as the rows before leave them', () => {
    // Cue 1 ends earlier, so cue 2 may start where cue 1 used to end.
    const result = plan(
      sheetOf((rows) => {
        rows[0]!['TC Out'] = '10:00:01:12';
        rows[1]!['TC In'] = '10:00:01:20';
      }),
    );
    expect(result.problems).toEqual([]);
    expect(result.changes.map((c) => [c.lineId, c.start, c.end])).toEqual([
      [1, 1, 1.48],
      [5, 1.8, 4],
    ]);
  });

  it('says when a cue is another line now, and refuses a bad timecode with the reason', () => {
    const result = plan(
      sheetOf((rows) => {
        rows[1]!['Line ID'] = '4';
        rows[2]!['TC In'] = '10:00:05:30';
      }),
    );
    expect(result.problems.map((p) => [p.code, p.message])).toEqual([
      ['cue_moved', expect.stringContaining('Cue 2 is line 5 now, the sheet says line 4')],
      ['timecode_invalid', expect.stringContaining('frames must be 00 to 24')],
    ]);
  });
});

describe('parseStatus', () => {
  it('reads the statuses however they are written', () => {
    expect(['todo', 'Needs changes', 'needs-changes', 'APPROVED', 'done'].map(parseStatus)).toEqual(['todo', 'needs_changes', 'needs_changes', 'approved', null]);
  });
});
