/**
 * Speaker fixes and the speech-models page end to end: real service (`npm run serve`), a real two-reader
 * recording, Debian's Chromium. Split a line at a word → give a word range to a new speaker → merge that
 * speaker back → undo; then Settings → Speech models, where a download whose checksum is not the
 * published one is refused. Screenshots go to test-artifacts/screenshots/.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, launchChromium } from './browser';
import { buildStudio } from './build-studio';
import { repoRoot, sharedDir, startService, type RunningService } from './service-process';
import { twoReadersFile } from '../helpers/two-readers';

const screenshots = path.join(repoRoot, 'test-artifacts/screenshots');
const testModel = path.join(sharedDir(), 'models/whisper-for-tests/for-tests-ggml-tiny.en.bin');
const canRun = fs.existsSync(CHROMIUM) && fs.existsSync(testModel) && fs.existsSync(path.join(sharedDir(), 'audio/asr'));

describe.skipIf(!canRun)('speaker fixes in the studio', { timeout: 420_000 }, () => {
  let service: RunningService;
  let browser: { context: BrowserContext; close(): Promise<void> };
  let page: Page;
  let mirror: http.Server;
  let key = '';
  let sessionId = '';
  let newLabel = '';
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'takeline-e2e-edits-'));
  const pageErrors: string[] = [];
  const shot = (name: string) => page.screenshot({ path: path.join(screenshots, `${name}.png`) });
  const api = async (p: string, init: RequestInit = {}) =>
    (await fetch(`${service.url}${p}`, { ...init, headers: { Authorization: `Bearer ${key}`, ...(init.headers as Record<string, string>) } })).json();
  /** The first rendered line with at least `n` words. */
  const lineWith = async (n: number) => {
    const counts = await page.getByTestId('segment').evaluateAll((els) => els.map((e) => e.querySelectorAll('[data-testid=word]').length));
    const index = counts.findIndex((c) => c >= n);
    expect(index).toBeGreaterThanOrEqual(0);
    return page.getByTestId('segment').nth(index);
  };
  const speakers = async () => (await api(`/v1/speech/transcriptions/${sessionId}`)).transcript.speakers as string[];

  beforeAll(async () => {
    fs.mkdirSync(screenshots, { recursive: true });
    // A stand-in for the model download server: it serves the weightless test model as tiny.en.
    const bytes = fs.readFileSync(testModel);
    mirror = http.createServer((req, res) => {
      if (req.url === '/ggml-tiny.en.bin') res.writeHead(200, { 'Content-Length': bytes.length }).end(bytes);
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => mirror.listen(0, '127.0.0.1', resolve));
    await buildStudio();
    service = await startService({
      env: {
        TAKELINE_MODELS_DIR: path.join(tmp, 'models'),
        TAKELINE_WHISPER_BASE_URL: `http://127.0.0.1:${(mirror.address() as AddressInfo).port}`,
      },
    });
    key = fs.readFileSync(path.join(service.dataDir, 'secrets', 'studio-api-key'), 'utf8').trim();
    const form = new FormData();
    form.append('project_key', 'e2e-speakers');
    form.append('file', new Blob([fs.readFileSync(twoReadersFile(tmp))]), 'two-readers.flac');
    sessionId = (await api('/v1/speech/transcriptions', { method: 'POST', body: form })).id;
    let status = '';
    for (let i = 0; i < 600 && status !== 'complete' && status !== 'failed'; i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, 500));
      status = (await api(`/v1/speech/transcriptions/${sessionId}`)).status;
    }
    // The studio steps need the transcript: say so here rather than as a missing panel later.
    if (status !== 'complete') throw new Error(`the recording's transcription is ${status}, not complete`);
    browser = await launchChromium();
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    page.on('pageerror', (e) => pageErrors.push(e.message));
  }, 360_000);

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    mirror?.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('opens the recording with its speakers panel', async () => {
    await page.goto(service.signInUrl);
    await page.waitForURL(`${service.url}/`);
    await page.goto(`${service.url}/#/recordings/${sessionId}`);
    await page.getByTestId('word').first().waitFor({ timeout: 60_000 });
    await page.getByTestId('speaker-panel').waitFor();
    expect(await page.getByTestId('speaker-item').count()).toBeGreaterThanOrEqual(2);
    expect(await page.getByTestId('revision').textContent()).toBe('As recognized');
  });

  it('splits a line at a word', async () => {
    const before = await page.getByTestId('segment').count();
    const line = await lineWith(4);
    const firstWords = await line.getByTestId('word').allTextContents();
    await line.getByTestId('line-speaker').click();
    const dialog = page.getByTestId('line-speaker-dialog');
    await dialog.waitFor();
    await dialog.getByTestId('edit-word').nth(2).click();
    await shot('20-speaker-line-dialog');
    await dialog.getByTestId('split-line').click();
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(() => page.getByTestId('segment').count()).toBe(before + 1);
    await expect.poll(() => page.getByTestId('revision').textContent()).toBe('Revision 1 (edited)');
    // Its author by name: the studio signed in with the desktop's one-time link.
    expect(await page.getByTestId('revision-author').textContent()).toBe('by the desktop');
    const index = Number(await line.getAttribute('data-segment-id'));
    const halves = page.locator(`[data-testid=segment][data-segment-id="${index}"], [data-testid=segment][data-segment-id="${index + 1}"]`);
    const words = await Promise.all([0, 1].map(async (i) => (await halves.nth(i).getByTestId('word').allTextContents()).map((w) => w.trim())));
    expect(words).toEqual([firstWords.slice(0, 2).map((w) => w.trim()), firstWords.slice(2).map((w) => w.trim())]);
  });

  it('gives a range of words to a new speaker', async () => {
    const before = await speakers();
    const count = before.length;
    const line = await lineWith(3);
    await line.getByTestId('line-speaker').click();
    const dialog = page.getByTestId('line-speaker-dialog');
    await dialog.getByTestId('edit-word').nth(1).click();
    await dialog.getByTestId('edit-word').nth(2).click({ modifiers: ['Shift'] });
    expect(await dialog.getByTestId('edit-selection').textContent()).toBe('Words 2–3');
    await dialog.getByTestId('give-new').click();
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(() => page.getByTestId('speaker-item').count()).toBe(count + 1);
    newLabel = (await speakers()).find((l) => !before.includes(l))!;
    expect(newLabel).toMatch(/^S\d+$/);
    await shot('21-speaker-new-voice');
  });

  it('merges the new speaker into the first one, and undoes the merge', async () => {
    const labels = await speakers();
    await page.getByTestId('merge-from').selectOption(newLabel);
    await page.getByTestId('merge-into').selectOption(labels[0]!);
    await page.getByTestId('merge-speakers').click();
    await expect.poll(() => page.getByTestId('speaker-item').count()).toBe(labels.length - 1);
    expect(await speakers()).not.toContain(newLabel);
    await page.getByTestId('undo-edit').click();
    await expect.poll(() => page.getByTestId('speaker-item').count()).toBe(labels.length);
    expect(await speakers()).toContain(newLabel);
    const revisions = await api(`/v1/speech/transcriptions/${sessionId}/transcript/revisions`);
    expect(revisions.data.map((r: { edit: { op: string } | null }) => r.edit?.op ?? null)).toEqual([null, 'split', 'reassign', 'merge', 'restore']);
    await shot('22-speaker-panel');
    expect(pageErrors).toEqual([]);
  });

  it('lists speech models in Settings and refuses a download whose checksum is not the published one', async () => {
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.waitForURL(/#\/settings$/);
    const row = page.getByTestId('model-tiny.en');
    await row.waitFor();
    expect(await page.getByTestId('default-engine').textContent()).toBe('pocketsphinx-en-us');
    await row.getByRole('button', { name: 'Download' }).click();
    await row.getByRole('alert').waitFor({ timeout: 30_000 });
    expect(await row.getByRole('alert').textContent()).toMatch(/SHA-1 .* not the published c78c86eb1a8faa21b369bcd33207cc90d64ae9df/);
    await shot('23-settings-speech-models');
    expect(pageErrors).toEqual([]);
  });
});
