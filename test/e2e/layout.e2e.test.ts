/**
 * The studio's layout as an editor meets it: the recording view and the dub view at three window sizes
 * (1280×800, 1440×900, 1920×1080) and three zoom levels (Fit, + twice, + four times). Only the waveform
 * may scroll sideways: the page never grows wider than the window and the transport, side panel and
 * transcript stay inside it; no two transcript rows (or dub lines) overlap; a speaker's name never runs
 * into its talk time; the voice drop-downs show their whole choice; drop-frame ruler labels fall on round
 * timecode; the waveform says its display is normalised. Real service, real recordings (a quiet AMI
 * meeting excerpt with a click in it, then a louder one), Debian's Chromium.
 * Screenshots of every size × zoom go to test-artifacts/screenshots/layout-*.png.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { arcGapLimit, splitAtGaps } from '../../src/renderer/src/analysis/trajectory';
import { dubMaster, referenceLines } from '../helpers/dubs';
import { CHROMIUM } from './browser';
import { MONO, renderRecording, silence } from './recording';
import { sharedDir } from './service-process';
import { openStudio, screenshots, type StudioFixture } from './studio-fixture';

const QUIET = path.join(sharedDir(), 'audio/diarization/trn02.flac');
const LOUDER = path.join(sharedDir(), 'audio/diarization/trn05.flac');
const canRun = fs.existsSync(CHROMIUM) && fs.existsSync(QUIET) && fs.existsSync(LOUDER);

const SIZES = [
  { width: 1280, height: 800 },
  { width: 1440, height: 900 },
  { width: 1920, height: 1080 },
] as const;
/** Presses of + after Fit. */
const ZOOMS = [0, 2, 4] as const;
const zoomName = (presses: number) => (presses === 0 ? 'fit' : `plus${presses}`);

/**
 * Everything on screen that breaks the layout, as readable sentences (empty when the layout holds).
 * Runs in the page.
 */
function layoutFaults(): string[] {
  const faults: string[] = [];
  const vw = window.innerWidth;
  const vh = window.innerHeight;
  const root = document.documentElement;
  if (root.scrollWidth > vw) faults.push(`page is ${root.scrollWidth} px wide in a ${vw} px window`);
  if (root.scrollHeight > vh) faults.push(`page is ${root.scrollHeight} px tall in a ${vh} px window`);
  const inside = (selector: string, name: string) => {
    const els = [...document.querySelectorAll<HTMLElement>(selector)];
    if (els.length === 0) faults.push(`${name} (${selector}) is missing`);
    for (const el of els) {
      const b = el.getBoundingClientRect();
      if (b.left < -0.5 || b.right > vw + 0.5)
        faults.push(`${name} spans x ${Math.round(b.left)}…${Math.round(b.right)} outside 0…${vw}`);
    }
  };
  inside('.topbar', 'top bar');
  inside('.transport', 'transport');
  inside('aside.side', 'side panel');
  inside('.transcript-panel', 'transcript panel');
  inside('.wave-panel', 'waveform panel');
  // The transport's controls themselves (Play, −/Fit/+) must be reachable.
  for (const b of document.querySelectorAll<HTMLElement>('.transport button')) {
    const r = b.getBoundingClientRect();
    if (r.right > vw + 0.5) faults.push(`transport button "${b.textContent}" ends at x ${Math.round(r.right)}`);
  }

  const overlaps = (selector: string, name: string) => {
    const boxes = [...document.querySelectorAll<HTMLElement>(selector)]
      .map((el) => ({ el, b: el.getBoundingClientRect() }))
      .filter(({ b }) => b.height > 0)
      .sort((x, y) => x.b.top - y.b.top);
    for (let i = 1; i < boxes.length; i++) {
      const a = boxes[i - 1]!;
      const b = boxes[i]!;
      if (a.b.bottom > b.b.top + 0.5)
        faults.push(`${name} ${i - 1} (bottom ${a.b.bottom.toFixed(1)}) overlaps ${name} ${i} (top ${b.b.top.toFixed(1)}) by ${(a.b.bottom - b.b.top).toFixed(1)} px`);
    }
  };
  overlaps('[data-testid=segment]', 'transcript row');
  overlaps('[data-testid=dub-line]', 'dub line');

  // A speaker's name and its talk time apart, never run together.
  for (const item of document.querySelectorAll<HTMLElement>('[data-testid=speaker-item]')) {
    const spans = [...item.querySelectorAll<HTMLElement>(':scope > span')].filter((s) => s.textContent);
    for (let i = 1; i < spans.length; i++) {
      const a = spans[i - 1]!.getBoundingClientRect();
      const b = spans[i]!.getBoundingClientRect();
      const sameLine = a.bottom > b.top && b.bottom > a.top;
      // Side by side with room between them (4 px), not touching: "Speaker 1 · S10:10" reads as one word.
      if (sameLine && b.left - a.right < 4) faults.push(`speaker item "${item.textContent}" runs into its time`);
    }
  }

  // A drop-down must show its whole choice: the chosen option's text fits the box.
  const canvas = document.createElement('canvas').getContext('2d')!;
  for (const select of document.querySelectorAll<HTMLSelectElement>('select')) {
    const text = select.selectedOptions[0]?.textContent ?? '';
    const style = getComputedStyle(select);
    canvas.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    const room =
      select.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 16; // the arrow
    const need = canvas.measureText(text).width;
    if (need > room + 0.5) faults.push(`drop-down "${text}" needs ${Math.round(need)} px, has ${Math.round(room)}`);
    const r = select.getBoundingClientRect();
    const holder = select.closest('aside, td, .transcript-panel')?.getBoundingClientRect();
    if (holder && (r.right > holder.right + 0.5 || r.left < holder.left - 0.5))
      faults.push(`drop-down "${text}" sticks out of its panel`);
  }
  return faults;
}

/** Frames per label the ruler may step by at 29.97 (30 labels a second): 0.1 s … 2 h in timecode. */
const ROUND_STEPS = [0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200].map((s) => s * 30);

/**
 * Drop-frame ruler labels that are not round positions: every label must be a whole number of the ruler's
 * step (0.1 s … 2 h in timecode), counted on the timecode; where ";00" does not exist, ";02" stands for it.
 */
function oddRulerLabels(labels: string[]): string[] {
  const counts = labels.map((l) => {
    const m = /^(\d\d):(\d\d):(\d\d);(\d\d)$/.exec(l);
    if (!m) return NaN;
    const [hh, mm, ss, ff] = m.slice(1).map(Number) as [number, number, number, number];
    const frames = ff === 2 && ss === 0 && mm % 10 !== 0 ? 0 : ff;
    return (hh * 3600 + mm * 60 + ss) * 30 + frames;
  });
  const diffs = counts.slice(1).map((c, i) => c - counts[i]!);
  if (diffs.length === 0) return labels.filter((_, i) => !(counts[i]! % 30 === 0));
  const step = Math.min(...diffs);
  if (!ROUND_STEPS.includes(step)) return [`labels ${step} frames apart (${labels.slice(0, 3).join(', ')} …)`];
  return labels.filter((_, i) => !(counts[i]! % step === 0));
}

describe.skipIf(!canRun)('studio layout at every window size and zoom', { timeout: 600_000 }, () => {
  let f: StudioFixture;
  let page: Page;
  let sessionId = '';
  let dubId = '';
  const faults: Record<string, string[]> = {};

  const api = async (p: string, init: RequestInit = {}) => {
    const res = await fetch(`${f.service.url}${p}`, {
      ...init,
      headers: { Authorization: `Bearer ${f.key}`, ...(init.headers as Record<string, string>) },
    });
    const body = await res.json();
    if (!res.ok) throw new Error(`${p}: ${res.status} ${JSON.stringify(body)}`);
    return body;
  };

  beforeAll(async () => {
    f = await openStudio('layout');
    page = f.page;
    // A quiet meeting (mean −51 dBFS) with one click in it, a pause, then a louder meeting.
    const recording = renderRecording(
      path.join(f.work, 'quiet-meeting.wav'),
      [QUIET, LOUDER],
      [
        `[0:a]${MONO}[a]`,
        silence('gap', 20),
        `[1:a]${MONO}[b]`,
        '[a][gap][b]concat=n=3:v=0:a=1[cat]',
        "aevalsrc='if(between(t\\,5\\,5.003)\\,0.9\\,0)':s=16000:d=80,aformat=sample_fmts=fltp:channel_layouts=mono[click]",
        '[cat][click]amix=inputs=2:duration=first:normalize=0[speech]',
      ],
    );
    const form = new FormData();
    form.append('project_key', 'e2e-layout');
    form.append('project_name', 'E2E layout');
    form.append('file', await fs.openAsBlob(recording), 'quiet-meeting.wav');
    sessionId = (await api('/v1/speech/transcriptions', { method: 'POST', body: form })).id;
    for (let i = 0; i < 2400; i++) {
      const s = await api(`/v1/speech/transcriptions/${sessionId}`);
      if (s.status === 'complete') break;
      if (s.status === 'failed') throw new Error(`transcription failed: ${s.error}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    await api(`/v1/speech/transcriptions/${sessionId}/media`, {
      method: 'PATCH',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ frame_rate: '29.97', drop_frame: true, start_timecode: '01:00:00;00', tape: 'A001' }),
    });
    // A dub with its lines given, so it opens ready.
    const dub = new FormData();
    dub.append('file', await fs.openAsBlob(dubMaster(f.work, 45, { name: 'episode-dub.wav' })), 'episode-dub.wav');
    dub.append('lines', JSON.stringify(referenceLines(45)));
    dubId = (await api(`/v1/speech/transcriptions/${sessionId}/dubs`, { method: 'POST', body: dub })).id;
    await page.goto(f.service.signInUrl);
    await page.waitForURL(`${f.service.url}/`);
  }, 600_000);

  afterAll(async () => {
    await f?.close();
  });

  async function checkAtZooms(view: 'recording' | 'dub', size: { width: number; height: number }) {
    await page.setViewportSize(size);
    const url =
      view === 'recording'
        ? `${f.service.url}/#/recordings/${sessionId}`
        : `${f.service.url}/#/recordings/${sessionId}/dubs/${dubId}`;
    // A fresh load each time: the transcript's rows are laid out from scratch at this size.
    await page.goto('about:blank');
    await page.goto(url);
    await page.locator('[data-testid=waveform][data-ready=true]').waitFor({ timeout: 60_000 });
    if (view === 'recording') await page.getByTestId('segment').first().waitFor();
    else await page.getByTestId('dub-line').first().waitFor();
    const found: string[] = [];
    for (const presses of ZOOMS) {
      // The recording view by the keys (0, then + as the editor presses it), the dub view by the buttons.
      if (view === 'recording') {
        await page.locator('body').click({ position: { x: 5, y: 5 } });
        await page.keyboard.press('0');
        for (let i = 0; i < presses; i++) await page.keyboard.type('+');
      } else {
        await page.getByRole('button', { name: 'Fit', exact: true }).click();
        for (let i = 0; i < presses; i++) await page.getByRole('button', { name: 'Zoom in' }).click();
      }
      // Two frames: wavesurfer redraws and the transcript re-measures after the zoom.
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      await page.waitForTimeout(300);
      const name = `layout-${view}-${size.width}x${size.height}-${zoomName(presses)}`;
      await f.shot(name);
      found.push(...(await page.evaluate(layoutFaults)).map((x) => `${zoomName(presses)}: ${x}`));
      if (view === 'recording') {
        const labels = await page.getByTestId('ruler-label').allTextContents();
        expect(labels.length).toBeGreaterThan(0);
        found.push(...oddRulerLabels(labels).map((l) => `${zoomName(presses)}: ruler label ${l} is not a round position`));
      }
    }
    if (view === 'recording') {
      // A line opened (its box drawn round it, the line panel beside the transcript): still no overlap.
      await page.getByTestId('segment').first().locator('.text').click();
      await page.locator('[data-testid=segment][data-selected=true]').waitFor();
      await page.getByTestId('line-panel').waitFor();
      await page.waitForTimeout(300);
      await f.shot(`layout-${view}-${size.width}x${size.height}-line-open`);
      found.push(...(await page.evaluate(layoutFaults)).map((x) => `line open: ${x}`));
    }
    return found;
  }

  for (const size of SIZES) {
    for (const view of ['recording', 'dub'] as const) {
      it(`${view} view at ${size.width}×${size.height}: nothing leaves the window, no rows overlap`, async () => {
        const key = `${view} ${size.width}x${size.height}`;
        faults[key] = await checkAtZooms(view, size);
        expect(faults[key]).toEqual([]);
      });
    }
  }

  it('keeps notifications out of the way: never over the transcript, the side panel or Undo; three at most', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${f.service.url}/#/recordings/${sessionId}`);
    await page.getByTestId('segment').first().waitFor({ timeout: 60_000 });
    // Five exports in a row: five notifications.
    for (let i = 0; i < 5; i++) {
      await page.getByRole('button', { name: 'Export ▾' }).click();
      await page.locator('[role=menuitem][data-format=srt]').click();
      await page.getByRole('button', { name: 'Export ▾' }).waitFor();
    }
    const toasts = page.locator('.toasts .toast');
    await expect.poll(() => toasts.count()).toBeGreaterThan(1);
    expect(await toasts.count()).toBeLessThanOrEqual(3);
    await f.shot('layout-recording-1280x800-notifications');
    const covered = await page.evaluate(() => {
      const hit: string[] = [];
      const boxes = [...document.querySelectorAll<HTMLElement>('.toasts .toast')].map((t) => t.getBoundingClientRect());
      const targets: [string, string][] = [
        ['transcript panel', '.transcript-panel'],
        ['side panel', 'aside.side'],
        ['Undo', '[data-testid=undo-edit]'],
        ['transport', '.transport'],
      ];
      for (const [name, selector] of targets) {
        for (const el of document.querySelectorAll<HTMLElement>(selector)) {
          const r = el.getBoundingClientRect();
          for (const b of boxes)
            if (b.left < r.right && r.left < b.right && b.top < r.bottom && r.top < b.bottom) hit.push(name);
        }
      }
      return [...new Set(hit)];
    });
    expect(covered).toEqual([]);
    // The window still holds everything with the notifications shown.
    expect(await page.evaluate(layoutFaults)).toEqual([]);
  });

  it('says the waveform display is normalised', async () => {
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto(`${f.service.url}/#/recordings/${sessionId}`);
    await page.locator('[data-testid=waveform][data-ready=true]').waitFor({ timeout: 60_000 });
    const label = page.getByTestId('display-normalised');
    await label.waitFor();
    expect(await label.textContent()).toMatch(/normalised/i);
    expect(fs.existsSync(path.join(screenshots, 'layout-recording-1440x900-fit.png'))).toBe(true);
  });

  it("draws each speaker's arc with a time axis in the timebase, broken where the rule says", async () => {
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto(`${f.service.url}/#/recordings/${sessionId}`);
    await page.locator('[data-testid=analysis-status][data-status=complete]').waitFor({ timeout: 300_000 });
    await page.getByTestId('tab-speakers').click();
    await page.getByTestId('trajectory').first().waitFor({ timeout: 30_000 });
    await f.shot('layout-recording-1440x900-speaker-arcs');
    const intel = await api(`/v1/speech/transcriptions/${sessionId}/intelligence`);
    for (const chart of await page.getByTestId('trajectory').all()) {
      const speaker = (await chart.getAttribute('data-speaker'))!;
      const labels = await chart.getByTestId('trajectory-time').allTextContents();
      expect(labels.length).toBeGreaterThanOrEqual(2);
      expect(oddRulerLabels(labels)).toEqual([]);
      // Every label inside the chart.
      const inside = await chart.evaluate((fig) => {
        const box = fig.querySelector('svg')!.getBoundingClientRect();
        return [...fig.querySelectorAll('[data-testid=trajectory-time]')].every((t) => {
          const r = t.getBoundingClientRect();
          return r.left >= box.left - 0.5 && r.right <= box.right + 0.5;
        });
      });
      expect(inside).toBe(true);
      // The runs drawn are the ones the documented rule gives for the served trajectory.
      const points = [...intel.intelligence.speakers[speaker].trajectory].sort((a: { t: number }, b: { t: number }) => a.t - b.t);
      const valued = points.filter((p: { valence: number | null }) => p.valence !== null);
      const expected = splitAtGaps(valued, arcGapLimit(points)).length;
      expect(await chart.locator('[data-series=valence] [data-testid=trajectory-run]').count()).toBe(expected);
    }
  });

  it("shows a dub line that does not fit red with the share cut, and draws revision 2 on revision 1's scale", async () => {
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto(`${f.service.url}/#/recordings/${sessionId}/dubs/${dubId}`);
    await page.locator('[data-testid=waveform][data-ready=true]').waitFor({ timeout: 60_000 });
    const scale1 = Number(await page.getByTestId('display-normalised').getAttribute('data-peak'));
    const line6 = page.locator('[data-testid=dub-line][data-line="6"]');
    const text = line6.getByTestId('line-text');
    await text.fill('has never been surpassed by any printer, anywhere in the world, at any time in the long history of the craft since.');
    await text.press('Enter');
    await expect.poll(() => line6.getAttribute('data-state')).toBe('corrected');
    await line6.getByTestId('line-voice').selectOption('flite/rms');
    await page.getByTestId('revoice').click();
    await page.locator('[data-testid=revision][data-revision="2"][data-current=true]').waitFor({ timeout: 180_000 });
    await page.locator('[data-testid=waveform][data-ready=true]').waitFor({ timeout: 60_000 });
    await expect.poll(() => line6.getAttribute('data-state')).toBe('voiced');
    const flag = line6.locator('[data-testid=line-flag][data-flag=does_not_fit]');
    await flag.waitFor();
    expect(await flag.textContent()).toMatch(/^does not fit: \d+ % cut \(\d+\.\d s\)$/);
    // The state is a problem (red), not a green success beside the flag.
    const state = line6.getByTestId('line-state');
    expect(await state.getAttribute('class')).toContain('problem');
    const red = await state.evaluate((el) => getComputedStyle(el).color);
    expect(red).toBe(await flag.evaluate((el) => getComputedStyle(el).color));
    const danger = await page.evaluate(() => {
      const probe = document.createElement('span');
      probe.style.color = 'var(--danger)';
      document.body.append(probe);
      const colour = getComputedStyle(probe).color;
      probe.remove();
      return colour;
    });
    expect(red).toBe(danger);
    // Revision 2 is drawn on revision 1's scale, not its own.
    const scale2 = Number(await page.getByTestId('display-normalised').getAttribute('data-peak'));
    expect(scale2).toBe(scale1);
    await line6.scrollIntoViewIfNeeded();
    await f.shot('layout-dub-1440x900-does-not-fit');
    expect(await page.evaluate(layoutFaults)).toEqual([]);
  });

  it('says a dub still deriving its lines is preparing, with its progress, not that it has none', async () => {
    const dub = new FormData();
    dub.append('file', await fs.openAsBlob(dubMaster(f.work, 30, { name: 'untranscribed-dub.wav' })), 'untranscribed-dub.wav');
    const preparing = await api(`/v1/speech/transcriptions/${sessionId}/dubs`, { method: 'POST', body: dub });
    await page.goto(`${f.service.url}/#/recordings/${sessionId}/dubs/${preparing.id}`);
    // The lines panel is on screen while the dub is still being transcribed.
    await page.getByTestId('lines-panel').waitFor({ timeout: 30_000 });
    expect((await api(`/v1/speech/transcriptions/${sessionId}/dubs/${preparing.id}`)).status).toBe('preparing');
    await f.shot('layout-dub-1440x900-preparing');
    expect(await page.getByText('The dub has no lines').count()).toBe(0);
    const panel = page.getByTestId('lines-preparing');
    expect(await panel.textContent()).toMatch(/Preparing the lines.*Transcribing the dub/);
    expect(await panel.getByRole('progressbar').count()).toBe(1);
  });

  it('raised no page errors', () => {
    expect(f.consoleErrors).toEqual([]);
  });
});
