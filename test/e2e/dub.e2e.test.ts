/**
 * The dub view end to end: real service, real recordings, Debian's Chromium. A supervisor adds a dub
 * (48 kHz stereo, with its lines as JSON) to a recording, corrects a line inline (Enter saves), makes
 * another far too long for its slot, revoices with progress, plays the new revision, compares a line
 * A/B, sees the flag of the line that did not fit, and restores the first revision.
 * Screenshots go to test-artifacts/screenshots/ (dub-*.png).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, launchChromium } from './browser';
import { buildStudio } from './build-studio';
import { repoRoot, sharedDir, startService, type RunningService } from './service-process';
import { dubMaster, referenceLines, wavBytes } from '../helpers/dubs';
import { unzip } from '../helpers/zip';
import { modelsDir } from '../helpers/paths';
import { tempDir } from '../helpers/temp';

const RECORDING = path.join(sharedDir(), 'audio/asr/amateur_LJ001-0001.flac');
const screenshots = path.join(repoRoot, 'test-artifacts/screenshots');
const canRun = fs.existsSync(CHROMIUM) && fs.existsSync(RECORDING);

describe.skipIf(!canRun)('dub view end to end', { timeout: 300_000 }, () => {
  let service: RunningService;
  let browser: { context: BrowserContext; close(): Promise<void> };
  let page: Page;
  let key = '';
  const dir = tempDir('takeline-e2e-dub-');
  const lines = referenceLines(45);
  const consoleErrors: string[] = [];
  const shot = (name: string) => page.screenshot({ path: path.join(screenshots, `${name}.png`) });
  const line = (id: number) => page.locator(`[data-testid=dub-line][data-line="${id}"]`);

  beforeAll(async () => {
    fs.mkdirSync(screenshots, { recursive: true });
    await buildStudio();
    service = await startService({ env: { TAKELINE_MODELS_DIR: modelsDir } });
    key = fs.readFileSync(path.join(service.dataDir, 'secrets', 'studio-api-key'), 'utf8').trim();
    browser = await launchChromium();
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    page.on('pageerror', (e) => consoleErrors.push(e.message));
    page.on('console', (m) => m.type() === 'error' && !/Failed to load resource/.test(m.text()) && consoleErrors.push(m.text()));
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  it('adds a dub with its lines from the recording view', async () => {
    // The recording, uploaded and transcribed through the API (the studio test covers that screen).
    const form = new FormData();
    form.append('project_key', 'e2e-dubbing');
    form.append('project_name', 'E2E dubbing');
    form.append('file', await fs.openAsBlob(RECORDING), 'take-one.flac');
    const session = await (await fetch(`${service.url}/v1/speech/transcriptions`, { method: 'POST', headers: { Authorization: `Bearer ${key}` }, body: form })).json();
    for (let i = 0; i < 600; i++) {
      const s = await (await fetch(`${service.url}/v1/speech/transcriptions/${session.id}`, { headers: { Authorization: `Bearer ${key}` } })).json();
      if (s.status === 'complete') break;
      await new Promise((r) => setTimeout(r, 250));
    }
    await page.goto(service.signInUrl);
    await page.waitForURL(`${service.url}/`);
    await page.goto(`${service.url}/#/recordings/${session.id}`);
    await page.getByTestId('add-dub').click();
    const linesFile = path.join(dir, 'lines.json');
    fs.writeFileSync(linesFile, JSON.stringify(lines));
    await page.getByTestId('dub-file').setInputFiles(dubMaster(dir, 45, { rate: 48000, channels: 2, codec: 'pcm_s24le', name: 'episode-dub.wav' }));
    await page.getByTestId('dub-lines').setInputFiles(linesFile);
    await page.getByRole('button', { name: 'Add dub' }).click();
    await page.waitForURL(/#\/recordings\/[^/]+\/dubs\/[^/]+$/);
    await page.locator('[data-testid=waveform][data-ready=true]').waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('dub-line').count()).toBe(lines.length);
    expect(await line(2).getByTestId('original-text').textContent()).toBe(lines[1]!.text);
    expect(await page.getByTestId('playing-revision').textContent()).toContain('Revision 1');
    await shot('dub-01-view');
  });

  it('corrects a line inline: Enter saves it beside the original', async () => {
    const input = line(2).getByTestId('line-text');
    await input.fill('For centuries the Chinese printed from carved wood blocks,');
    await input.press('Enter');
    await expect.poll(() => line(2).getAttribute('data-state')).toBe('corrected');
    expect(await line(2).getByTestId('original-text').textContent()).toBe(lines[1]!.text);
    // A line far too long for its 1.8-second slot, read by flite's rms.
    const long = line(6).getByTestId('line-text');
    await long.fill('has never been surpassed by any printer, anywhere in the world, at any time in the long history of the craft since.');
    await long.press('Enter');
    await expect.poll(() => line(6).getAttribute('data-state')).toBe('corrected');
    await line(6).getByTestId('line-voice').selectOption('flite/rms');
    await expect.poll(() => page.getByTestId('revoice').textContent()).toBe('Revoice (2)');
    // Escape puts an unsaved edit back.
    await line(3).getByTestId('line-text').fill('not kept');
    await line(3).getByTestId('line-text').press('Escape');
    expect(await line(3).getByTestId('line-text').inputValue()).toBe(lines[2]!.text);
    await shot('dub-02-corrected');
  });

  it('revoices with progress, then shows the new revision and the line that did not fit', async () => {
    let sawProgress = false;
    const watcher = setInterval(() => {
      void page.evaluate(() => !!document.querySelector('[data-testid=revoice-progress]')).then((v) => (sawProgress ||= v), () => undefined);
    }, 50);
    await page.getByTestId('revoice').click();
    await page.locator('[data-testid=revision][data-revision="2"][data-current=true]').waitFor({ timeout: 120_000 });
    clearInterval(watcher);
    expect(sawProgress).toBe(true);
    await expect.poll(() => page.getByTestId('playing-revision').textContent()).toContain('Revision 2');
    await expect.poll(() => line(2).getAttribute('data-state')).toBe('voiced');
    expect(await line(6).getAttribute('data-state')).toBe('voiced');
    await line(6).locator('[data-testid=line-flag][data-flag=does_not_fit]').waitFor();
    expect(await line(2).locator('[data-flag=does_not_fit]').count()).toBe(0);
    expect(await page.getByTestId('unfit-summary').textContent()).toContain('1 line did not fit');
    await page.locator('[data-testid=waveform][data-ready=true]').waitFor({ timeout: 30_000 });
    await shot('dub-03-revoiced');
  });

  it('plays the new revision', async () => {
    await page.getByTestId('play').click();
    await expect.poll(() => page.getByTestId('readout').textContent(), { timeout: 10_000 }).not.toBe('00:00:00.000');
    await page.getByTestId('play').click();
    await expect.poll(() => page.getByTestId('play').textContent()).toBe('Play');
  });

  it('compares a line A/B: before from revision 1, after from revision 2', async () => {
    const audio = page.locator('audio[data-testid=ab-audio]');
    await line(2).getByTestId('ab-B').click();
    await expect.poll(() => page.getByTestId('lines-panel').getAttribute('data-ab-revision')).toBe('2');
    expect(await audio.evaluate((a: HTMLAudioElement) => a.src)).toMatch(/\/revisions\/2\/file\?/);
    await expect.poll(() => audio.evaluate((a: HTMLAudioElement) => a.currentTime), { timeout: 10_000 }).toBeGreaterThan(lines[1]!.start);
    await shot('dub-04-ab');
    await line(2).getByTestId('ab-A').click();
    await expect.poll(() => page.getByTestId('lines-panel').getAttribute('data-ab-revision')).toBe('1');
    expect(await audio.evaluate((a: HTMLAudioElement) => a.src)).toMatch(/\/revisions\/1\/file\?/);
    await expect.poll(() => audio.evaluate((a: HTMLAudioElement) => !a.paused && a.currentTime > 0), { timeout: 10_000 }).toBe(true);
  });

  it('downloads the new revision as stems from the history: a zip of the mix, the background and each speaker', async () => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('[data-testid=revision][data-revision="2"]').getByTestId('download-stems').click()]);
    expect(download.suggestedFilename()).toBe('episode-dub-r2.stems.zip');
    const target = path.join(dir, download.suggestedFilename());
    await download.saveAs(target);
    const entries = await unzip(fs.readFileSync(target));
    const names = [...entries.keys()];
    expect(names.slice(0, 2)).toEqual(['mix.wav', 'background.wav']);
    expect(names.slice(2).every((n) => /^speaker-.+\.wav$/.test(n))).toBe(true);
    expect(names).toHaveLength(4);
    // Every stem is a whole WAV as long as the mix.
    for (const name of names) expect(wavBytes(entries.get(name)!).layout.frames).toBe(wavBytes(entries.get('mix.wav')!).layout.frames);
  });

  it('restores revision 1 from the history; the corrected lines wait for a revoice again', async () => {
    await page.locator('[data-testid=revision][data-revision="1"]').getByTestId('restore').click();
    await page.locator('[data-testid=revision][data-revision="1"][data-current=true]').waitFor();
    await expect.poll(() => page.getByTestId('playing-revision').textContent()).toContain('Revision 1');
    await expect.poll(() => line(2).getAttribute('data-state')).toBe('corrected');
    expect(await page.getByTestId('revision').count()).toBe(2);
    await shot('dub-05-restored');
  });

  it('raised no page errors', () => {
    expect(consoleErrors).toEqual([]);
  });
});
