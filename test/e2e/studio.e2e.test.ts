/**
 * The studio end to end: real service (`npm run serve`), real recording, Debian's Chromium.
 * Sign in → create a project → upload → progress → waveform and transcript → play → seek by word →
 * timebase (29.97 DF with a start timecode; first an invalid one to see the API's message) → ruler and
 * readout in timecode → frame step, in/out → shortcut sheet → export EDL and SRT → delete.
 * Screenshots of each main screen go to test-artifacts/screenshots/.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  formatReadout,
  secondsToTimecode,
  stepFrames,
  type Timebase,
} from '../../src/renderer/src/lib/timecode';
import { CHROMIUM, collectPageErrors, launchChromium } from './browser';
import { buildStudio } from './build-studio';
import { repoRoot, sharedDir, startService, type RunningService } from './service-process';

const RECORDING = 'ljspeech_LJ001-0004.flac';
const recordingPath = path.join(sharedDir(), 'audio/asr', RECORDING);
const screenshots = path.join(repoRoot, 'test-artifacts/screenshots');
const canRun =
  fs.existsSync(CHROMIUM) &&
  fs.existsSync(recordingPath) &&
  fs.existsSync(path.join(repoRoot, 'src/service/cli/serve.ts'));

function reference(): string {
  const tsv = fs.readFileSync(path.join(sharedDir(), 'audio/asr/refs.tsv'), 'utf8');
  const line = tsv.split('\n').find((l) => l.startsWith(`${RECORDING}\t`));
  return line?.split('\t')[2] ?? '';
}

const words = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z' ]+/g, ' ')
    .split(/\s+/)
    .filter(Boolean);

describe.skipIf(!canRun)('studio end to end', { timeout: 300_000 }, () => {
  let service: RunningService;
  let browser: { context: BrowserContext; close(): Promise<void> };
  let page: Page;
  const downloads = fs.mkdtempSync(path.join(os.tmpdir(), 'takeline-e2e-downloads-'));
  let consoleErrors: string[] = [];
  const shot = (name: string) => page.screenshot({ path: path.join(screenshots, `${name}.png`) });

  beforeAll(async () => {
    fs.mkdirSync(screenshots, { recursive: true });
    await buildStudio();
    service = await startService();
    browser = await launchChromium();
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    consoleErrors = collectPageErrors(page);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    fs.rmSync(downloads, { recursive: true, force: true });
  });

  let wordStart = 0;
  let sessionId = '';

  it('signs in through the one-time link and shows the empty project list', async () => {
    await page.goto(service.signInUrl);
    await page.waitForURL(`${service.url}/`);
    await page.getByRole('heading', { name: 'Projects', exact: true }).waitFor();
    await page.getByTestId('empty').waitFor();
    expect(await page.getByTestId('empty').textContent()).toContain('No projects yet');
    await shot('01-projects-empty');
  });

  it('shows the API message for an invalid project key next to the field', async () => {
    await page.getByLabel('Name').fill('E2E interviews');
    await page.getByLabel('Key').fill('Not A Valid Key!');
    await page.getByRole('button', { name: 'Create project' }).click();
    const fieldError = page.locator('form .field-error, form .form-error').first();
    await fieldError.waitFor();
    expect((await fieldError.textContent())?.length).toBeGreaterThan(0);
    await shot('02-project-key-error');
  });

  it('creates a project', async () => {
    await page.getByLabel('Key').fill('e2e-interviews');
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.waitForURL(/#\/projects\/e2e-interviews$/);
    await page.getByRole('heading', { name: /E2E interviews/ }).waitFor();
    await page.getByText('No recordings yet').waitFor();
  });

  it('uploads a real recording and shows upload then processing progress until complete', async () => {
    const seen = { upload: false, processing: false };
    const watcher = setInterval(() => {
      void page
        .evaluate(() => ({
          upload: !!document.querySelector('[data-testid=upload-progress]'),
          processing: !!document.querySelector('[data-testid=processing-progress]'),
        }))
        .then(
          (s) => {
            seen.upload ||= s.upload;
            seen.processing ||= s.processing;
          },
          () => undefined,
        );
    }, 50);
    await page.getByTestId('file-input').setInputFiles(recordingPath);
    const row = page.getByTestId('recording-row').first();
    await row.waitFor();
    if (['queued', 'running'].includes((await row.getAttribute('data-status')) ?? '')) {
      await shot('03-project-processing');
    }
    await page.locator('[data-testid=recording-row][data-status=complete]').waitFor({ timeout: 240_000 });
    clearInterval(watcher);
    // The POST answers with a queued session, so the processing bar is on screen at least until the first poll.
    expect(seen.processing).toBe(true);
    // A 100 KB local upload can finish between two samples; the bar's presence is logged, not required.
    console.info(`upload progress bar observed: ${seen.upload}`);
    await shot('04-project-complete');
  });

  it('opens the recording with waveform from peaks and the transcript', async () => {
    const peaksRequest = page.waitForResponse((r) => /\/peaks$/.test(r.url()) && r.status() === 200);
    await page.getByRole('link', { name: RECORDING }).click();
    await peaksRequest;
    sessionId = /#\/recordings\/(.+)$/.exec(page.url())?.[1] ?? '';
    expect(sessionId).not.toBe('');
    await page.locator('[data-testid=waveform][data-ready=true]').waitFor({ timeout: 30_000 });
    await page.getByTestId('word').first().waitFor();
    const text = (await page.getByTestId('transcript').textContent()) ?? '';
    const recognised = new Set(words(text));
    const ref = words(reference());
    const hits = ref.filter((w) => recognised.has(w)).length;
    console.info(
      `transcript: ${JSON.stringify(text.slice(0, 200))}; ${hits}/${ref.length} reference words present`,
    );
    expect(hits).toBeGreaterThan(0);
    // Ruler labels without a timebase are clock time (M:SS).
    expect(await page.getByTestId('ruler-label').first().textContent()).toMatch(/^\d+:\d\d(\.\d)?$/);
    expect(await page.getByTestId('readout').textContent()).toBe('00:00:00.000');
    await shot('05-recording');
  });

  it('plays with Space and stops with K', async () => {
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('Space');
    await expect.poll(() => page.getByTestId('shuttle').textContent()).toBe('▶ 1×');
    await expect
      .poll(() => page.getByTestId('readout').textContent(), { timeout: 10_000 })
      .not.toBe('00:00:00.000');
    // Repeated L doubles the speed; J slows forward play; K stops.
    await page.keyboard.press('l');
    await expect.poll(() => page.getByTestId('shuttle').textContent()).toBe('▶ 2×');
    await page.keyboard.press('j');
    await expect.poll(() => page.getByTestId('shuttle').textContent()).toBe('▶ 1×');
    await page.keyboard.press('k');
    await expect.poll(() => page.getByTestId('shuttle').textContent()).toBe('■');
  });

  it('filters and highlights the transcript on search', async () => {
    const total = await page.getByTestId('segment').count();
    const firstWord = (await page.getByTestId('word').first().textContent())!.trim();
    await page.getByTestId('search').fill(firstWord);
    await expect
      .poll(() => page.getByTestId('search-count').textContent())
      .toMatch(new RegExp(`^\\d+ of ${total} lines$`));
    expect(await page.locator('[data-testid=word].hit').count()).toBeGreaterThan(0);
    await page.getByTestId('search').fill('zzzqqq-not-said');
    await page.getByText('No matches').waitFor();
    await page.getByTestId('search').fill('');
    await page.getByTestId('word').first().waitFor();
    await page.locator('body').click({ position: { x: 5, y: 5 } });
  });

  it('seeks by clicking a word and highlights it', async () => {
    const word = page.getByTestId('word').nth(2);
    wordStart = Number(await word.getAttribute('data-start'));
    await word.click();
    await expect.poll(() => page.getByTestId('readout').textContent()).toBe(formatReadout(wordStart, null));
    await expect.poll(() => word.getAttribute('class')).toContain('cur');
  });

  it('shows the API validation message for an impossible timebase', async () => {
    await page.getByTestId('open-timebase').click();
    const dialog = page.getByTestId('timebase-dialog');
    await dialog.waitFor();
    await dialog.getByLabel('Frame rate').selectOption('25');
    await dialog.getByLabel('Drop frame').check();
    await dialog.getByRole('button', { name: 'Save timebase' }).click();
    const error = dialog.locator('[data-testid^=error-], [data-testid=timebase-error]').first();
    await error.waitFor();
    expect((await error.textContent())?.length).toBeGreaterThan(0);
    await shot('06-timebase-error');
  });

  it('sets 29.97 drop frame with a start timecode; the ruler and readout follow', async () => {
    const tb: Timebase = { frameRate: '29.97', dropFrame: true, startTimecode: '01:00:00;00' };
    const dialog = page.getByTestId('timebase-dialog');
    await dialog.getByLabel('Frame rate').selectOption('29.97');
    await dialog.getByLabel('Start timecode').fill(tb.startTimecode!);
    await dialog.getByLabel('Tape / reel').fill('A001');
    await dialog.getByRole('button', { name: 'Save timebase' }).click();
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(() => page.getByTestId('readout').textContent()).toBe(secondsToTimecode(wordStart, tb));
    const labels = await page.getByTestId('ruler-label').allTextContents();
    expect(labels.length).toBeGreaterThan(0);
    for (const l of labels) expect(l).toMatch(/^01:00:\d\d;\d\d$/);
    expect(labels[0]).toBe('01:00:00;00');

    // One frame of 30000/1001 with →, in/out points with I and O.
    await page.keyboard.press('ArrowRight');
    const afterStep = stepFrames(wordStart, 1, tb, 1e9);
    await expect.poll(() => page.getByTestId('readout').textContent()).toBe(secondsToTimecode(afterStep, tb));
    await page.keyboard.press('i');
    await page.keyboard.press('Shift+ArrowRight');
    await page.keyboard.press('o');
    // Key handling and React's render are asynchronous to the page: poll, as for the readout above.
    await expect.poll(() => page.getByTestId('in-point').textContent()).toBe(secondsToTimecode(afterStep, tb));
    await expect
      .poll(() => page.getByTestId('out-point').textContent())
      .toBe(secondsToTimecode(afterStep + 1, tb));
    await page.getByTestId('ruler-io').waitFor();
    await shot('07-recording-timecode');
  });

  it('opens the shortcut sheet on ? and ignores keys typed in the search box', async () => {
    await page.keyboard.press('?');
    await page.getByTestId('shortcut-sheet').waitFor();
    await shot('08-shortcuts');
    await page.keyboard.press('Escape');
    await page.getByTestId('shortcut-sheet').waitFor({ state: 'detached' });

    const before = await page.getByTestId('readout').textContent();
    await page.getByTestId('search').fill('');
    await page.getByTestId('search').pressSequentially('l');
    expect(await page.getByTestId('shuttle').textContent()).toBe('■');
    expect(await page.getByTestId('readout').textContent()).toBe(before);
    await page.getByTestId('search').fill('');
  });

  async function exportFormat(format: 'edl' | 'srt'): Promise<string> {
    await page.getByRole('button', { name: /Export/ }).click();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.locator(`[data-format=${format}]`).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(new RegExp(`\\.${format}$`));
    const target = path.join(downloads, download.suggestedFilename());
    await download.saveAs(target);
    return fs.readFileSync(target, 'utf8');
  }

  it('exports an EDL in the drop-frame timebase', async () => {
    const edl = await exportFormat('edl');
    expect(edl).toMatch(/^TITLE: /m);
    expect(edl).toContain('FCM: DROP FRAME');
    expect(edl).toMatch(/01:00:\d\d;\d\d/);
  });

  it('exports SRT subtitles with the transcript', async () => {
    const srt = await exportFormat('srt');
    expect(srt).toMatch(/^1\r?\n\d\d:\d\d:\d\d,\d{3} --> \d\d:\d\d:\d\d,\d{3}/);
    // The first recognized word (the transcript's rows also show the speaker's name, which subtitles do not).
    const firstWord = words((await page.getByTestId('word').first().textContent()) ?? '')[0]!;
    expect(srt.toLowerCase()).toContain(firstWord);
  });

  it('deletes the recording after confirmation', async () => {
    await page.getByRole('link', { name: 'E2E interviews' }).click();
    await page.getByRole('button', { name: `Delete ${RECORDING}` }).click();
    await page.getByTestId('confirm-dialog').waitFor();
    await shot('09-delete-confirm');
    await page.getByTestId('confirm-dialog').getByRole('button', { name: 'Delete' }).click();
    await page.getByText('No recordings yet').waitFor();
    expect(await page.getByTestId('recording-row').count()).toBe(0);
  });

  it('uploads a recording dropped on the drop zone', async () => {
    const base64 = fs.readFileSync(recordingPath).toString('base64');
    await page.getByTestId('dropzone').evaluate(
      (zone, { name, data }) => {
        const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
        const transfer = new DataTransfer();
        transfer.items.add(new File([bytes], name, { type: 'audio/flac' }));
        for (const type of ['dragenter', 'dragover', 'drop']) {
          zone.dispatchEvent(
            new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: transfer }),
          );
        }
      },
      { name: `dropped-${RECORDING}`, data: base64 },
    );
    await page.getByRole('link', { name: `dropped-${RECORDING}` }).waitFor();
    expect(await page.getByTestId('recording-row').count()).toBe(1);
  });

  it('raised no page errors', () => {
    expect(consoleErrors).toEqual([]);
  });
});
