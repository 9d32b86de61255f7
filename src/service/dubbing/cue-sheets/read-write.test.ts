import { describe, expect, it } from 'vitest';
import { CUE_SHEET_COLUMNS, type CueSheetRow } from './columns';
import { CueSheetFormatError, readCueSheet } from './read';
import { cueSheetCsv, cueSheetXlsx } from './write';

const ROW: CueSheetRow = {
  Cue: '1',
  Character: '@Ada',
  'TC In': '00:00:59;14',
  'TC Out': '00:01:02;01',
  'Original Dialogue': 'We leave, "at" dawn.',
  Dialogue: '=SUM(A1) é',
  Status: 'todo',
  Notes: 'ada: hi | bob: x',
  Take: '2',
  'Line ID': '7',
};

describe('cue sheet files', () => {
  it('writes CSV with a BOM and formula guards, and reads it back as written', async () => {
    const csv = cueSheetCsv([ROW]);
    expect([...csv.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(csv.toString('utf8')).toContain(`'@Ada,00:00:59;14,00:01:02;01,"We leave, ""at"" dawn.",'=SUM(A1) é,`);
    expect(await readCueSheet(csv)).toEqual({ columns: [...CUE_SHEET_COLUMNS], rows: [{ row: 2, cells: ROW }] });
  });

  it('writes xlsx text cells and reads them back as written', async () => {
    expect(await readCueSheet(await cueSheetXlsx([ROW], { title: 't', timebase: 'x' }))).toEqual({ columns: [...CUE_SHEET_COLUMNS], rows: [{ row: 2, cells: ROW }] });
  });

  it('reads semicolon CSV, any column order and case, and skips blank rows', async () => {
    const sheet = await readCueSheet(Buffer.from('dialogue;CUE;Other\r\nHello;3;x\r\n;;\r\n"Bye; now";4;y\r\n'));
    expect(sheet).toEqual({
      columns: ['Dialogue', 'Cue'],
      rows: [
        { row: 2, cells: { Dialogue: 'Hello', Cue: '3' } },
        { row: 4, cells: { Dialogue: 'Bye; now', Cue: '4' } },
      ],
    });
  });

  it('refuses a sheet without a Cue column, and bytes that are not a workbook', async () => {
    await expect(readCueSheet(Buffer.from('a,b\n1,2\n'))).rejects.toThrow(CueSheetFormatError);
    await expect(readCueSheet(Buffer.from('PK\u0003\u0004garbage'))).rejects.toThrow(/cannot be read as xlsx/);
  });
});
