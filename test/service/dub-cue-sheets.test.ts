/**
 * The dub's cue sheet out and in (CSV and xlsx): an unchanged sheet changes nothing; a sheet edited in
 * LibreOffice Calc changes exactly what was edited; a sheet with bad rows changes nothing and lists every
 * bad row (or, asked to, applies the good ones). Real service, real LibreOffice.
 */
import fs from 'node:fs';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { secondsToTimecode, timecodeToSeconds } from '../../src/shared/timecode';
import { createSession, dubMaster, sessionSettled, uploadDub } from '../helpers/dubs';
import { CSV_UTF8, CSV_UTF8_IN, hasLibreOffice, sofficeConvert } from '../helpers/libreoffice';
import { multipartBody, startServiceProcess, type ServiceProcess } from '../helpers/service';
import { tempDir } from '../helpers/temp';

type Line = { id: number; start: number; end: number; text: string; review_status: string; notes: Array<{ author: string; text: string }>; revision: number };

const LINES = [
  { speaker: 'S1', start: 0.5, end: 2.5, text: 'We leave at dawn.' },
  { speaker: 'S2', start: 3, end: 5, text: 'Not without the maps, we don\'t.' },
  { speaker: 'S1', start: 5.5, end: 7.5, text: 'Then bring them, "quietly".' },
  { speaker: 'S2', start: 8, end: 10.5, text: 'Fine.' },
];
const CLOCK = { frameRate: '29.97' as const, dropFrame: true, startTimecode: '00:00:59;00' };

describe('dub cue sheets in and out', { timeout: 900_000 }, () => {
  let svc: ServiceProcess;
  let sessionId: string;
  let dubId: string;
  const api = (p: string, init: RequestInit = {}) =>
    fetch(`${svc.url}/v1/speech/transcriptions/${sessionId}${p}`, {
      ...init,
      headers: { Authorization: `Bearer ${svc.key}`, ...(typeof init.body === 'string' ? { 'Content-Type': 'application/json' } : {}), ...init.headers },
    });
  const lines = async (): Promise<Line[]> => (await (await api(`/dubs/${dubId}/lines`)).json()).data;
  const sheet = async (format: 'csv' | 'xlsx') => {
    const res = await api(`/dubs/${dubId}/cue-sheet.${format}`);
    expect(res.status, await res.clone().text()).toBe(200);
    return { res, body: Buffer.from(await res.arrayBuffer()) };
  };
  const importSheet = async (file: Buffer, name: string, query = '') => {
    const { body, contentType } = multipartBody([{ name: 'file', file, filename: name }]);
    return api(`/dubs/${dubId}/cue-sheet${query}`, { method: 'POST', headers: { 'Content-Type': contentType }, body: new Uint8Array(body) });
  };
  const csvRows = (data: Buffer) => parse(data.toString('utf8'), { bom: true }) as string[][];

  beforeAll(async () => {
    svc = await startServiceProcess();
    sessionId = await createSession(svc, 'dub-cue-sheets');
    await sessionSettled(svc, sessionId);
    const media = await api('/media', { method: 'PATCH', body: JSON.stringify({ frame_rate: '29.97', drop_frame: true, start_timecode: '00:00:59;00' }) });
    expect(media.status, await media.clone().text()).toBe(200);
    const master = dubMaster(tempDir('takeline-cues-'), 12);
    const res = await uploadDub(svc, sessionId, [
      { name: 'file', file: fs.readFileSync(master), filename: 'ep.wav' },
      { name: 'lines', value: JSON.stringify(LINES) },
    ]);
    expect(res.status, res.text()).toBe(201);
    dubId = res.json().id;
    const note = await api(`/dubs/${dubId}/lines/2/notes`, { method: 'POST', body: JSON.stringify({ text: 'Too hot | breathy' }) });
    expect(note.status).toBe(201);
  }, 600_000);
  afterAll(async () => {
    await svc?.stop();
  });

  it('exports the cues in time order on the dub\'s drop-frame timebase, as CSV and xlsx', async () => {
    const { res, body } = await sheet('csv');
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8; header=present');
    expect(res.headers.get('content-disposition')).toMatch(/filename="?ep\.cue-sheet\.csv"?$/);
    const rows = csvRows(body);
    expect(rows[0]).toEqual(['Cue', 'Character', 'TC In', 'TC Out', 'Original Dialogue', 'Dialogue', 'Status', 'Notes', 'Take', 'Line ID']);
    // The character is the project's name for the speaker where it has one, else the label.
    const map = (await (await api('')).json()).speaker_map ?? {};
    const character = (label: string): string => map[label]?.name ?? label;
    expect(rows.slice(1).map((r) => r.slice(0, 4))).toEqual(LINES.map((l, i) => [String(i + 1), character(l.speaker), secondsToTimecode(l.start, CLOCK), secondsToTimecode(l.end, CLOCK)]));
    // Across the minute in drop frame: 3 s (89 frames) after 00:00:59;00 is 00:01:02;01, labels ;00 and ;01 of minute 1 being skipped.
    expect(rows[2]![2]).toBe('00:01:02;01');
    expect(rows[2]![7]).toBe('the desktop: Too hot | breathy');
    const xlsx = await sheet('xlsx');
    expect(xlsx.res.headers.get('content-type')).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    expect(xlsx.body.subarray(0, 2).toString()).toBe('PK');
  });

  it('changes nothing when a sheet comes back unchanged (CSV and xlsx)', async () => {
    const before = await lines();
    const dub = await (await api(`/dubs/${dubId}`)).json();
    for (const [format, name] of [
      ['csv', 'cues.csv'],
      ['xlsx', 'cues.xlsx'],
    ] as const) {
      const res = await importSheet((await sheet(format)).body, name);
      expect(res.status, await res.clone().text()).toBe(200);
      expect(await res.json()).toEqual({ rows: 4, applied: [], skipped: [], lines_revision: dub.lines_revision });
    }
    expect(await lines()).toEqual(before);
    expect((await (await api(`/dubs/${dubId}/edits`)).json()).data).toEqual([]);
  });

  it.skipIf(!hasLibreOffice())('applies exactly the edits made in LibreOffice Calc to the xlsx', async () => {
    const before = await lines();
    // Calc opens the workbook and saves it as CSV; the "supervisor" edits four cells; Calc reads the CSV and saves xlsx.
    const csv = await sofficeConvert((await sheet('xlsx')).body, 'cues.xlsx', CSV_UTF8);
    const rows = csvRows(csv);
    const col = (name: string) => rows[0]!.indexOf(name);
    rows[2]![col('Dialogue')] = 'Not without the charts, we don\'t.';
    rows[3]![col('Status')] = 'Needs changes';
    rows[1]![col('Notes')] = 'Breath before "dawn" is clipped';
    const newOut = secondsToTimecode(10, CLOCK);
    rows[4]![col('TC Out')] = newOut;
    const edited = rows.map((r) => r.map((c) => (/[",\n]/.test(c) ? `"${c.replaceAll('"', '""')}"` : c)).join(',')).join('\n') + '\n';
    const xlsx = await sofficeConvert(Buffer.from(edited), 'edited.csv', 'xlsx', CSV_UTF8_IN);

    const res = await importSheet(xlsx, 'edited.xlsx');
    expect(res.status, await res.clone().text()).toBe(200);
    const result = await res.json();
    expect(result.applied).toEqual([
      { row: 2, cue: 1, line_id: 1, changed: ['notes'] },
      { row: 3, cue: 2, line_id: 2, changed: ['text'] },
      { row: 4, cue: 3, line_id: 3, changed: ['status'] },
      { row: 5, cue: 4, line_id: 4, changed: ['timing'] },
    ]);
    const after = await lines();
    const strip = ({ revision: _r, updated_at: _u, notes: _n, state: _s, corrected: _c, needs_revoice: _p, ...rest }: Line & Record<string, unknown>) => rest;
    const expected = before.map((l) => strip(l as Line & Record<string, unknown>));
    // Line 2: new text (review back to todo, as a line edit); line 3: needs changes; line 4: out moved to 10 s's frame.
    Object.assign(expected[1]!, { text: 'Not without the charts, we don\'t.', review_status: 'todo' });
    Object.assign(expected[2]!, { review_status: 'needs_changes' });
    Object.assign(expected[3]!, { end: timecodeToSeconds(newOut, CLOCK) });
    expect(after.map((l) => strip(l as Line & Record<string, unknown>))).toEqual(expected);
    expect(after[0]!.notes.map((n) => [n.author, n.text])).toEqual([['the desktop', 'Breath before "dawn" is clipped']]);
    expect(after.slice(1).map((l) => l.notes.length)).toEqual([1, 0, 0]);
    // The text and the timing are undoable corrections; the line edits' revision moved.
    const edits = (await (await api(`/dubs/${dubId}/edits`)).json()).data;
    expect(edits.map((e: { op: string; before: number[] }) => [e.op, e.before])).toEqual([
      ['correct', [2]],
      ['correct', [4]],
    ]);
    expect(after[3]!.revision).toBeGreaterThan(before[3]!.revision);
    // The status of line 4 was todo and stays todo (its timing changed); exported again, the sheet reads as edited.
    const again = csvRows((await sheet('csv')).body);
    expect(again[2]![col('Dialogue')]).toBe('Not without the charts, we don\'t.');
    expect(again[4]![col('TC Out')]).toBe(newOut);
  });

  it('changes nothing when any row is bad and lists every bad row; ?apply=valid applies the others', async () => {
    const before = await lines();
    const rows = csvRows((await sheet('csv')).body);
    const col = (name: string) => rows[0]!.indexOf(name);
    rows[1]![col('Status')] = 'done';
    rows[2]![col('Character')] = 'Somebody else';
    rows[3]![col('TC In')] = rows[2]![col('TC In')]!;
    rows[4]![col('Dialogue')] = 'Fine, then.';
    rows.push(['9', 'S1', '', '', '', 'Extra', 'todo', '', '', '']);
    rows.push([...rows[4]!]);
    const csv = Buffer.from(rows.map((r) => r.map((c) => (/[",\n]/.test(c) ? `"${c.replaceAll('"', '""')}"` : c)).join(',')).join('\r\n'));

    const refused = await importSheet(csv, 'bad.csv');
    expect(refused.status).toBe(422);
    const detail = (await refused.json()).detail as Array<{ loc: Array<string | number>; type: string; ctx: { row: number } }>;
    expect(detail.map((d) => [d.ctx.row, d.loc.at(-1), d.type])).toEqual([
      [2, 'Status', 'status_invalid'],
      [3, 'Character', 'read_only'],
      [4, 'TC In', 'line_overlap'],
      [6, 'Cue', 'cue_unknown'],
      [7, 'Cue', 'cue_duplicate'],
    ]);
    expect(await lines()).toEqual(before);

    const partial = await importSheet(csv, 'bad.csv', '?apply=valid');
    expect(partial.status, await partial.clone().text()).toBe(200);
    const result = await partial.json();
    expect(result.applied).toEqual([{ row: 5, cue: 4, line_id: 4, changed: ['text'] }]);
    expect(result.skipped.map((s: { row: number }) => s.row)).toEqual([2, 3, 4, 6, 7]);
    const after = await lines();
    expect(after.map((l) => l.text)).toEqual([...before.slice(0, 3).map((l) => l.text), 'Fine, then.']);
    expect(after.slice(0, 3)).toEqual(before.slice(0, 3));
  });

  it('refuses what is not a cue sheet with 422; an unknown dub is 404', async () => {
    const res = await importSheet(Buffer.from('hello,world\n1,2\n'), 'x.csv');
    expect(res.status).toBe(422);
    expect((await res.json()).detail[0].type).toBe('cue_sheet_unreadable');
    expect((await api('/dubs/00000000-0000-4000-8000-000000000000/cue-sheet.csv')).status).toBe(404);
  });
});
