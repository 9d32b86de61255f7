/**
 * The dub view's cue sheet buttons, end to end: real service (`npm run serve`), Debian's Chromium. The sheet is
 * downloaded from the toolbar, edited, and imported with "Import cue sheet…": the edits land (checked through
 * the API); a sheet with a bad row changes nothing and lists the row, and "Apply the other rows" applies the
 * rest. At 1280×800. Screenshots go to test-artifacts/screenshots/ (cuesheet-*.png).
 */
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM } from './browser';
import { sharedDir } from './service-process';
import { openStudio, type StudioFixture } from './studio-fixture';
import { dubMaster } from '../helpers/dubs';

const canRun = fs.existsSync(CHROMIUM) && fs.existsSync(path.join(sharedDir(), 'audio/asr'));
const LINES = [
  { speaker: 'S1', start: 0.5, end: 2.5, text: 'We leave at dawn.' },
  { speaker: 'S2', start: 3, end: 5, text: 'Not without the maps.' },
  { speaker: 'S1', start: 5.5, end: 7.5, text: 'Then bring them.' },
];

describe.skipIf(!canRun)('cue sheets in the dub view', { timeout: 600_000 }, () => {
  let f: StudioFixture;
  let page: Page;
  let sessionId = '';
  let dubId = '';
  const api = async (p: string, init: RequestInit = {}) => {
    const res = await fetch(`${f.service.url}${p}`, { ...init, headers: { Authorization: `Bearer ${f.key}`, ...(init.headers as Record<string, string>) } });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  const lines = async (): Promise<Array<{ id: number; text: string; review_status: string }>> => (await api(`/v1/speech/transcriptions/${sessionId}/dubs/${dubId}/lines`)).body.data;
  const toCsv = (rows: string[][]) => rows.map((r) => r.map((c) => (/[",\n]/.test(c) ? `"${c.replaceAll('"', '""')}"` : c)).join(',')).join('\r\n') + '\r\n';
  const toastText = async () => (await page.getByTestId('toast').allTextContents()).join(' | ');

  beforeAll(async () => {
    f = await openStudio('cuesheet');
    page = f.page;
    await page.setViewportSize({ width: 1280, height: 800 });
    const form = new FormData();
    form.append('project_key', 'e2e-cuesheet');
    form.append('file', await fs.openAsBlob(path.join(sharedDir(), 'audio/asr/amateur_LJ001-0001.flac')), 'take.flac');
    sessionId = (await api('/v1/speech/transcriptions', { method: 'POST', body: form })).body.id;
    const dub = new FormData();
    dub.append('file', await fs.openAsBlob(dubMaster(f.work, 10)), 'ep.wav');
    dub.append('lines', JSON.stringify(LINES));
    const made = await api(`/v1/speech/transcriptions/${sessionId}/dubs`, { method: 'POST', body: dub });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    dubId = made.body.id;
    await page.goto(f.service.signInUrl);
    await page.waitForURL(`${f.service.url}/`);
  }, 420_000);

  afterAll(async () => {
    await f?.close();
  });

  it('downloads the sheet, and an edited sheet imported from the toolbar changes exactly the edited lines', async () => {
    await page.goto(`${f.service.url}/#/recordings/${sessionId}/dubs/${dubId}`);
    await page.getByTestId('cue-sheet').waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('cue-sheet').selectOption('csv')]);
    expect(download.suggestedFilename()).toBe('ep.cue-sheet.csv');
    const saved = path.join(f.work, 'sheet.csv');
    await download.saveAs(saved);
    const rows = parse(fs.readFileSync(saved, 'utf8'), { bom: true }) as string[][];
    expect(rows.map((r) => r[5])).toEqual(['Dialogue', ...LINES.map((l) => l.text)]);

    rows[1]![5] = 'We leave at first light.';
    rows[2]![6] = 'approved';
    const edited = path.join(f.work, 'edited.csv');
    fs.writeFileSync(edited, toCsv(rows));
    // "Import…" opens the file chooser; the test hands it the file.
    const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.getByTestId('cue-sheet').selectOption('import')]);
    await chooser.setFiles(edited);
    await expect.poll(toastText).toContain('Cue sheet imported: 2 cues changed');
    expect((await lines()).map((l) => [l.text, l.review_status])).toEqual([
      ['We leave at first light.', 'todo'],
      ['Not without the maps.', 'approved'],
      ['Then bring them.', 'todo'],
    ]);
    // The view shows the new text without a reload.
    await expect.poll(() => page.getByTestId('dub-line').first().textContent()).toContain('We leave at first light.');
    await f.shot('cuesheet-01-imported');
  });

  it('lists the rows a sheet cannot apply, changes nothing, and applies the other rows when asked', async () => {
    const before = await lines();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('cue-sheet').selectOption('csv')]);
    const saved = path.join(f.work, 'again.csv');
    await download.saveAs(saved);
    const rows = parse(fs.readFileSync(saved, 'utf8'), { bom: true }) as string[][];
    rows[1]![6] = 'finished';
    rows[3]![5] = 'Then bring them all.';
    const bad = path.join(f.work, 'bad.csv');
    fs.writeFileSync(bad, toCsv(rows));
    await page.getByTestId('cue-sheet-file').setInputFiles(bad);
    const dialog = page.getByTestId('cue-sheet-refused');
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain('Row 2 (cue 1): "finished" is not a status');
    expect(await lines()).toEqual(before);
    await f.shot('cuesheet-02-refused');
    await page.getByTestId('cue-sheet-apply-valid').click();
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(toastText).toContain('1 cue changed, 1 row skipped');
    expect((await lines()).map((l) => l.text)).toEqual(['We leave at first light.', 'Not without the maps.', 'Then bring them all.']);
  });
});
