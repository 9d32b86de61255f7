import ExcelJS from 'exceljs';
import { stringify } from 'csv-stringify/sync';
import { inertText } from '../../export/csv';
import { CUE_SHEET_COLUMNS, type CueSheetRow } from './columns';

/** Free-text columns: a spreadsheet would run a CSV cell starting with = + - @ as a formula. */
const FREE_TEXT = new Set(['Character', 'Original Dialogue', 'Dialogue', 'Notes']);

/** RFC 4180 CSV (CRLF, quoted where needed) with a UTF-8 byte order mark, which spreadsheets read as UTF-8. */
export function cueSheetCsv(rows: readonly CueSheetRow[]): Buffer {
  const records = rows.map((row) => CUE_SHEET_COLUMNS.map((c) => (FREE_TEXT.has(c) ? inertText(row[c]) : row[c])));
  const text = stringify([[...CUE_SHEET_COLUMNS], ...records], { record_delimiter: 'windows' });
  return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text, 'utf8')]);
}

const WIDTHS: Record<string, number> = { Cue: 6, Character: 16, 'TC In': 13, 'TC Out': 13, 'Original Dialogue': 48, Dialogue: 48, Status: 14, Notes: 40, Take: 6, 'Line ID': 8 };

/**
 * One worksheet "Cues", every cell a text cell (a timecode or cue number typed as text stays as written;
 * a string cell is never a formula, so free text needs no guard), the header frozen.
 */
export async function cueSheetXlsx(rows: readonly CueSheetRow[], info: { title: string; timebase: string }): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  workbook.creator = 'Takeline';
  workbook.title = info.title;
  workbook.description = `Timecode: ${info.timebase}`;
  const sheet = workbook.addWorksheet('Cues', { views: [{ state: 'frozen', ySplit: 1 }] });
  sheet.columns = CUE_SHEET_COLUMNS.map((c) => ({ header: c, key: c, width: WIDTHS[c], style: { numFmt: '@' } }));
  sheet.getRow(1).font = { bold: true };
  for (const row of rows) sheet.addRow(CUE_SHEET_COLUMNS.map((c) => row[c]));
  return Buffer.from(await workbook.xlsx.writeBuffer());
}
