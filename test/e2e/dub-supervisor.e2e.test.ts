/**
 * What a dubbing supervisor meets first in the dub view, in Debian's Chromium against the real service: a dub
 * of the recording shows its lines and its progress at once (never an error, nor "Loading lines…" for
 * seconds) and its waveform as soon as it is ready; it is named as a dub, not as the recording's file; its
 * lines are numbered by position; its readout's "of" is its length; the lines table fits 1280×800 with every
 * column, and its columns keep their widths when a revoice adds flags; the bar counts voiced lines after a
 * revoice; a line's out is where its voice ends, as in the cue sheet; the Takes panel's voice choice shows
 * whole at 1440×900. Screenshots: test-artifacts/screenshots/dubsup-*.png.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cueOut } from '../../src/shared/dubbing/cue-out';
import { secondsToTimecode } from '../../src/shared/timecode';
import { twoReadersFile } from '../helpers/two-readers';
import { CHROMIUM } from './browser';
import { sharedDir } from './service-process';
import { openStudio, type StudioFixture } from './studio-fixture';

const canRun = fs.existsSync(CHROMIUM) && fs.existsSync(path.join(sharedDir(), 'audio/asr'));
const CLOCK = { frameRate: '29.97' as const, dropFrame: true, startTimecode: '01:00:00;00' };

interface Line {
  id: number;
  start: number;
  end: number;
  text: string;
  state: string;
  needs_revoice: boolean;
  render: { flags: string[]; speech: { start: number; end: number } } | null;
}

/** Whether a drop-down's chosen text fits its box (as the layout test measures it). Runs in the page. */
function selectFits(select: HTMLSelectElement): { text: string; need: number; room: number } {
  const text = select.selectedOptions[0]?.textContent ?? '';
  const style = getComputedStyle(select);
  const canvas = document.createElement('canvas').getContext('2d')!;
  canvas.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
  return { text, need: canvas.measureText(text).width, room: select.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 16 };
}

describe.skipIf(!canRun)("the dub view as a dubbing supervisor meets it", { timeout: 600_000 }, () => {
  let f: StudioFixture;
  let page: Page;
  let sessionId = '';
  let dubId = '';
  const api = async (p: string, init: RequestInit = {}) => {
    const res = await fetch(`${f.service.url}${p}`, {
      ...init,
      headers: { Authorization: `Bearer ${f.key}`, ...(typeof init.body === 'string' ? { 'Content-Type': 'application/json' } : {}) },
    });
    const text = await res.text();
    const json = (res.headers.get('content-type') ?? '').includes('json');
    return { status: res.status, body: json && text ? JSON.parse(text) : null, text };
  };
  const dubPath = () => `/v1/speech/transcriptions/${sessionId}/dubs/${dubId}`;
  const lines = async (): Promise<Line[]> => (await api(`${dubPath()}/lines`)).body.data;
  const row = (id: number) => page.locator(`[data-testid=dub-line][data-line="${id}"]`);
  const rowIds = async () => page.getByTestId('dub-line').evaluateAll((els) => els.map((e) => Number((e as HTMLElement).dataset.line)));
  const numbersShown = async () => (await page.getByTestId('line-number').allTextContents()).map((t) => t.trim());
  const headerWidths = async () => page.locator('[data-testid=dub-lines] thead th').evaluateAll((els) => els.map((e) => Math.round(e.getBoundingClientRect().width * 10) / 10));

  beforeAll(async () => {
    f = await openStudio('dubsup');
    page = f.page;
    const form = new FormData();
    form.append('project_key', 'e2e-dubsup');
    form.append('project_name', 'Dub supervisor');
    form.append('file', await fs.openAsBlob(twoReadersFile(f.work)), 'two-readers.flac');
    sessionId = (await api('/v1/speech/transcriptions', { method: 'POST', body: form })).body.id;
    for (let i = 0; i < 1200; i++) {
      const s = (await api(`/v1/speech/transcriptions/${sessionId}`)).body;
      if (s.status === 'complete' || s.status === 'failed') break;
      await new Promise((r) => setTimeout(r, 250));
    }
    const media = await api(`/v1/speech/transcriptions/${sessionId}/media`, {
      method: 'PATCH',
      body: JSON.stringify({ frame_rate: '29.97', drop_frame: true, start_timecode: '01:00:00;00' }),
    });
    expect(media.status).toBe(200);
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(f.service.signInUrl);
    await page.waitForURL(`${f.service.url}/`);
  }, 420_000);

  afterAll(async () => {
    await f?.close();
  });

  it('shows the lines and the progress at once after "Dub this recording", then the waveform as soon as the dub is ready; the dub has a name of its own', async () => {
    await page.goto(`${f.service.url}/#/recordings/${sessionId}`);
    await page.getByTestId('dub-from-recording').click();
    await page.waitForURL(/#\/recordings\/[^/]+\/dubs\/[^/]+$/);
    const opened = Date.now();
    dubId = /dubs\/([^/]+)$/.exec(page.url())![1]!;
    // What the view shows, every 100 ms, until the waveform is drawn; and when the API first said ready.
    const seen: Array<{ at: number; rows: number; loadingLines: boolean; error: boolean; progress: boolean; wave: boolean }> = [];
    let readyAt: number | null = null;
    const watchApi = (async () => {
      while (readyAt === null && Date.now() - opened < 120_000) {
        if ((await api(dubPath())).body.status === 'ready') readyAt = Date.now() - opened;
        else await new Promise((r) => setTimeout(r, 100));
      }
    })();
    for (let i = 0; i < 1200; i++) {
      const state = await page.evaluate(`({
        rows: document.querySelectorAll('[data-testid=dub-line]').length,
        loadingLines: document.body.textContent.includes('Loading lines…'),
        error: document.body.textContent.includes('Something went wrong'),
        progress: !!document.querySelector('[data-testid=wave-preparing] [role=progressbar]'),
        wave: !!document.querySelector('[data-testid=waveform][data-ready=true]'),
      })`) as Omit<(typeof seen)[number], 'at'>;
      seen.push({ at: Date.now() - opened, ...state });
      if (state.wave) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    await watchApi;
    const firstRows = seen.find((s) => s.rows > 0)?.at ?? Infinity;
    const waveAt = seen.at(-1)!.at;
    const loadingLines = seen.filter((s) => s.loadingLines).length * 100;
    console.log(`dub view: rows at ${firstRows} ms, API ready at ${readyAt} ms, waveform at ${waveAt} ms; "Loading lines…" about ${loadingLines} ms; progress shown: ${seen.some((s) => s.progress)}`);
    expect(seen.filter((s) => s.error)).toEqual([]);
    expect(seen.at(-1)!.wave).toBe(true);
    expect(readyAt).not.toBeNull();
    // The lines are on screen within moments of opening, while the dub prepares or as it becomes ready.
    expect(firstRows).toBeLessThan(Math.max(3000, readyAt! + 1000));
    expect(loadingLines).toBeLessThan(1500);
    // Every moment before the waveform, the lines or the progress are shown (never only "Loading lines…").
    expect(seen.filter((s) => s.at > 1500 && !s.wave && s.rows === 0 && !s.progress)).toEqual([]);
    // The waveform follows the API's ready promptly: its peaks were drawn while the dub prepared.
    expect(waveAt - readyAt!).toBeLessThan(6000);
    await f.shot('dubsup-01-ready-1280');

    // Named as a dub of the recording, beside the recording in the breadcrumb.
    const dub = (await api(dubPath())).body;
    expect(dub.name).toBe('two-readers dub');
    const crumbs = (await page.locator('nav.crumbs > span').allTextContents()).map((t) => t.replace(/^\s*\/\s*/, '').trim());
    expect(crumbs.slice(-2)).toEqual(['two-readers.flac', 'two-readers dub']);
    // The readout's "of" is the dub's length, as in the recording view, not where it ends.
    expect(await page.getByTestId('readout-length').textContent()).toBe(`of ${secondsToTimecode(dub.format.duration, { ...CLOCK, startTimecode: null })}`);
    await page.goto(`${f.service.url}/#/recordings/${sessionId}`);
    await expect.poll(() => page.getByTestId('readout-length').textContent()).toBe(`of ${secondsToTimecode((await api(`/v1/speech/transcriptions/${sessionId}`)).body.duration, { ...CLOCK, startTimecode: null })}`);
    await page.goto(`${f.service.url}/#/recordings/${sessionId}/dubs/${dubId}`);
    await page.locator('[data-testid=waveform][data-ready=true]').waitFor({ timeout: 60_000 });
  });

  it('numbers lines by position: after a split the numbers still count 1, 2, 3… while the new line has a new id', async () => {
    const before = await lines();
    await expect.poll(numbersShown).toEqual(before.map((_, i) => String(i + 1)));
    const long = before.find((l) => l.end - l.start > 3)!;
    const at = Math.round((long.start + 1.5) * 1000) / 1000;
    expect((await api(`${dubPath()}/lines/${long.id}/split`, { method: 'POST', body: JSON.stringify({ at }) })).status).toBe(200);
    const after = await lines();
    const added = after.find((l) => !before.some((b) => b.id === l.id))!;
    expect(added.id).toBeGreaterThan(before.length);
    await page.reload();
    await expect.poll(rowIds).toEqual(after.map((l) => l.id));
    expect(await numbersShown()).toEqual(after.map((_, i) => String(i + 1)));
    const position = after.indexOf(added) + 1;
    expect(await row(added.id).getByTestId('line-number').textContent()).toBe(String(position));
    // The side panel names the selected line by the same number.
    await row(added.id).getByTestId('line-time').click();
    await expect.poll(() => page.getByTestId('dub-takes').locator('h4').textContent()).toBe(`Takes · line ${position}`);
  });

  it('fits the lines table at 1280×800 with its Review column, keeps its columns when flags appear, and counts voiced lines after a revoice', async () => {
    await page.locator('[data-testid=waveform][data-ready=true]').waitFor({ timeout: 60_000 });
    const fits = async () =>
      page.evaluate(`(() => {
        const scroll = document.querySelector('[data-testid=lines-panel] .transcript-scroll');
        const panel = document.querySelector('[data-testid=lines-panel]').getBoundingClientRect();
        const review = [...document.querySelectorAll('[data-testid=dub-lines] th')].at(-1).getBoundingClientRect();
        const selects = [...document.querySelectorAll('[data-testid=line-review]')].map((s) => s.getBoundingClientRect().right);
        return { overflow: scroll.scrollWidth - scroll.clientWidth, reviewRight: review.right, panelRight: panel.right, selectsRight: Math.max(...selects) };
      })()`) as Promise<{ overflow: number; reviewRight: number; panelRight: number; selectsRight: number }>;
    const before = await fits();
    expect(before.overflow).toBeLessThanOrEqual(0);
    expect(before.reviewRight).toBeLessThanOrEqual(before.panelRight + 0.5);
    expect(before.selectsRight).toBeLessThanOrEqual(before.panelRight + 0.5);
    const widths = await headerWidths();

    // Two lines reworded in flite's voice, one far too long for its slot: a revoice flags them.
    const all = await lines();
    const [a, b] = [all[0]!, all[2]!];
    await row(a.id).getByTestId('line-voice').selectOption('flite/rms');
    await row(a.id).getByTestId('line-text').fill(`${a.text.replace(/[.!?]*$/, '')}, then.`);
    await row(a.id).getByTestId('line-text').press('Enter');
    await row(b.id).getByTestId('line-voice').selectOption('flite/rms');
    await row(b.id).getByTestId('line-text').fill('has never been surpassed by any printer, anywhere in the world, at any time in the long history of the craft since it began, nor will it be.');
    await row(b.id).getByTestId('line-text').press('Enter');
    await expect.poll(async () => (await lines()).filter((l) => l.needs_revoice).length).toBe(2);
    await expect.poll(() => page.getByTestId('line-count').textContent()).toBe(`${all.length} lines · 0 voiced · 2 to revoice`);
    await page.getByTestId('revoice').click();
    await page.locator('[data-testid=revision][data-revision="2"][data-current=true]').waitFor({ timeout: 180_000 });
    await expect.poll(() => row(b.id).getAttribute('data-state')).toBe('voiced');
    await expect.poll(() => page.getByTestId('line-flag').count()).toBeGreaterThan(0);
    const voiced = await lines();
    console.log(`flags: ${voiced.filter((l) => l.render).map((l) => `${l.id}: ${l.render!.flags.join(' ')}`).join('; ')}`);
    await page.locator('[data-testid=waveform][data-ready=true]').waitFor({ timeout: 60_000 });
    await f.shot('dubsup-02-flags-1280');
    expect(await headerWidths()).toEqual(widths);
    const after = await fits();
    expect(after.overflow).toBeLessThanOrEqual(0);
    expect(after.selectsRight).toBeLessThanOrEqual(after.panelRight + 0.5);
    // The bar counts what the lines are now: voiced, nothing left to revoice.
    const count = voiced.filter((l) => l.state === 'voiced').length;
    expect(count).toBe(2);
    await expect.poll(() => page.getByTestId('line-count').textContent()).toBe(`${voiced.length} lines · ${count} voiced · 0 to revoice`);

    // Each line's out is where the dub's voice of it ends, as the cue sheet says.
    const cues = (await api(`${dubPath()}/export?format=cues_csv`)).text.trimEnd().split('\r\n').slice(1).map((r) => r.split(','));
    for (const l of voiced) {
      const out = secondsToTimecode(cueOut(l), CLOCK);
      expect(await row(l.id).getByTestId('line-out').textContent()).toBe(out);
      expect(cues.find((c) => c[1] === String(l.id))![5]).toBe(out);
    }
  });

  it("shows the Takes panel's voice choice whole at 1440×900", async () => {
    await page.setViewportSize({ width: 1440, height: 900 });
    const first = (await lines())[1]!;
    await row(first.id).getByTestId('line-time').click();
    const voice = page.getByTestId('dub-takes').getByTestId('takes-voice');
    await voice.waitFor();
    const options = await voice.locator('option').evaluateAll((els) => els.map((e) => (e as HTMLOptionElement).value));
    for (const value of options) {
      await voice.selectOption(value);
      const fit = await voice.evaluate(selectFits);
      expect(fit.need, `"${fit.text}" needs ${Math.round(fit.need)} px, has ${Math.round(fit.room)}`).toBeLessThanOrEqual(fit.room + 0.5);
    }
    await voice.selectOption('');
    await f.shot('dubsup-03-takes-1440');
  });

  it('raised no page errors', () => {
    expect(f.consoleErrors).toEqual([]);
  });
});
