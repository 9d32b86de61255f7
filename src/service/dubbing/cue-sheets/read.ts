import ExcelJS from 'exceljs';
import { parse } from 'csv-parse/sync';
import { CUE_SHEET_COLUMNS, type CueSheetColumn, type ReadRow, type ReadSheet } from './columns';

/** A sheet that cannot be read at all (not CSV or xlsx, no header row, no Cue column). */
export class CueSheetFormatError extends Error {}

/** More rows than any dub has lines (with room for blank rows). */
export const CUE_SHEET_MAX_ROWS = 20_000;

const XLSX_MAGIC = Buffer.from('PK\u0003\u0004', 'latin1');

function columnOf(header: string): CueSheetColumn | null {
  const key = header.trim().toLowerCase().replace(/\s+/g, ' ');
  return CUE_SHEET_COLUMNS.find((c) => c.toLowerCase() === key) ?? null;
}

/** The guard a CSV export puts before free text that starts like a formula, taken off again. */
export function unguard(value: string): string {
  return /^'[=+\-@\t\r]/.test(value) ? value.slice(1) : value;
}

function toSheet(table: string[][]): ReadSheet {
  const headerIndex = table.findIndex((r) => r.some((c) => c.trim() !== ''));
  if (headerIndex < 0) throw new CueSheetFormatError('The cue sheet is empty.');
  const header = table[headerIndex]!.map(columnOf);
  const columns = header.filter((c): c is CueSheetColumn => c !== null);
  if (!columns.includes('Cue')) {
    throw new CueSheetFormatError(`The cue sheet's first row must name its columns, among them "Cue"; it reads: ${table[headerIndex]!.slice(0, 12).join(', ')}. The columns: ${CUE_SHEET_COLUMNS.join(', ')}.`);
  }
  const seen = new Set<CueSheetColumn>();
  for (const c of columns) {
    if (seen.has(c)) throw new CueSheetFormatError(`The cue sheet has two "${c}" columns.`);
    seen.add(c);
  }
  const rows: ReadRow[] = [];
  table.slice(headerIndex + 1).forEach((record, i) => {
    if (record.every((c) => c.trim() === '')) return;
    const cells: ReadRow['cells'] = {};
    header.forEach((c, k) => {
      if (c) cells[c] = unguard((record[k] ?? '').trim());
    });
    rows.push({ row: headerIndex + i + 2, cells });
  });
  if (rows.length > CUE_SHEET_MAX_ROWS) throw new CueSheetFormatError(`The cue sheet has ${rows.length} rows; at most ${CUE_SHEET_MAX_ROWS} are read.`);
  return { columns, rows };
}

/** The delimiter of the header line: comma, semicolon (spreadsheets in comma-decimal locales) or tab. */
function delimiterOf(text: string): string {
  const first = text.slice(0, text.search(/\r?\n|$/));
  const [best] = [',', ';', '\t'].map((d) => ({ d, n: first.split(d).length - 1 })).sort((a, b) => b.n - a.n);
  return best!.n > 0 ? best!.d : ',';
}

export function readCueSheetCsv(data: Buffer): ReadSheet {
  const text = data.toString('utf8');
  if (text.includes('\uFFFD')) throw new CueSheetFormatError('The CSV is not UTF-8 text; save it as "CSV UTF-8".');
  let table: string[][];
  try {
    table = parse(text, { bom: true, delimiter: delimiterOf(text.replace(/^\uFEFF/, '')), relax_column_count: true, skip_empty_lines: false }) as string[][];
  } catch (error) {
    throw new CueSheetFormatError(`The CSV cannot be read: ${(error as Error).message}`);
  }
  return toSheet(table);
}

function cellText(value: ExcelJS.CellValue): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') {
    if ('richText' in value) return value.richText.map((r) => r.text).join('');
    if ('text' in value && typeof value.text === 'string') return value.text;
    if ('result' in value) return cellText((value.result ?? null) as ExcelJS.CellValue);
    if ('error' in value) return String(value.error);
  }
  return String(value);
}

/** The first worksheet of an xlsx workbook, cells as text. */
export async function readCueSheetXlsx(data: Buffer): Promise<ReadSheet> {
  const workbook = new ExcelJS.Workbook();
  try {
    await workbook.xlsx.load(data as unknown as ArrayBuffer);
  } catch (error) {
    throw new CueSheetFormatError(`The workbook cannot be read as xlsx: ${(error as Error).message}`);
  }
  const sheet = workbook.worksheets[0];
  if (!sheet) throw new CueSheetFormatError('The workbook has no worksheet.');
  if (sheet.rowCount > CUE_SHEET_MAX_ROWS + 1) throw new CueSheetFormatError(`The cue sheet has ${sheet.rowCount} rows; at most ${CUE_SHEET_MAX_ROWS} are read.`);
  const table: string[][] = [];
  for (let r = 1; r <= sheet.rowCount; r++) {
    const row = sheet.getRow(r);
    const cells: string[] = [];
    for (let c = 1; c <= Math.max(row.cellCount, CUE_SHEET_COLUMNS.length); c++) cells.push(cellText(row.getCell(c).value));
    table.push(cells);
  }
  return toSheet(table);
}

/** Reads a cue sheet as xlsx (a zip) or CSV, whichever the bytes are. */
export async function readCueSheet(data: Buffer): Promise<ReadSheet> {
  if (data.length === 0) throw new CueSheetFormatError('The cue sheet is empty.');
  return data.subarray(0, 4).equals(XLSX_MAGIC) ? readCueSheetXlsx(data) : readCueSheetCsv(data);
}
