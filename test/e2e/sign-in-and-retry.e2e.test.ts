/**
 * Two ways back for a user: the sign-in page takes an API key when the one-time link was used
 * up, and a failed recording has Try again. Real service, Debian's Chromium. The service's ffmpeg hangs on
 * decoding (a wrapper), so every transcription fails at the 2-s stall limit.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, collectPageErrors, launchChromium } from './browser';
import { buildStudio } from './build-studio';
import { sharedDir, startService, type RunningService } from './service-process';
import { inspectDatabase } from '../helpers/crash';

const recording = path.join(sharedDir(), 'audio/asr/amateur_LJ001-0001.flac');
const canRun = fs.existsSync(CHROMIUM) && fs.existsSync(recording);

describe.skipIf(!canRun)('signing in again and retrying a failed recording', { timeout: 300_000 }, () => {
  let service: RunningService;
  let browser: { context: BrowserContext; close(): Promise<void> };
  let page: Page;
  let key = '';
  let pageErrors: string[] = [];
  let wrapperDir = '';

  beforeAll(async () => {
    await buildStudio();
    wrapperDir = fs.mkdtempSync(path.join(os.tmpdir(), 'takeline-e2e-ffmpeg-'));
    const wrapper = path.join(wrapperDir, 'ffmpeg');
    fs.writeFileSync(wrapper, '#!/bin/sh\ncase "$*" in *f32le*) exec sleep 600;; esac\nexec ffmpeg "$@"\n', { mode: 0o755 });
    service = await startService({ env: { TAKELINE_FFMPEG: wrapper, TAKELINE_DECODE_STALL_SECONDS: '2' } });
    key = fs.readFileSync(path.join(service.dataDir, 'secrets', 'studio-api-key'), 'utf8').trim();
    browser = await launchChromium();
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    pageErrors = collectPageErrors(page);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    if (wrapperDir) fs.rmSync(wrapperDir, { recursive: true, force: true });
  });

  it('offers an API key on the sign-in page: a wrong one is refused, the right one signs in', async () => {
    await page.goto(`${service.url}/`);
    await page.getByText('Sign in to the studio').waitFor();
    // Without TAKELINE_OIDC_* there is no single sign-on to offer (once the page has asked, GET /auth/session).
    await page.waitForLoadState('networkidle');
    expect(await page.getByRole('link', { name: 'Sign in with your organisation account' }).count()).toBe(0);
    await page.getByLabel('API key', { exact: true }).fill('tl_notakeynotakeynotakeynotakeynotakey12');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('That is not an active API key.').waitFor();
    await page.getByLabel('API key', { exact: true }).fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('No projects yet').waitFor();
    expect(await page.getByText('Sign in to the studio').count()).toBe(0);
    // The key is not kept by the page: only the HttpOnly cookie.
    expect(await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }) + document.cookie)).not.toContain(key);
  });

  it('shows why a recording failed and queues it again with Try again', async () => {
    const form = new FormData();
    form.append('project_key', 'retry');
    form.append('file', new Blob([fs.readFileSync(recording)]), 'take.flac');
    const created = await fetch(`${service.url}/v1/speech/transcriptions`, { method: 'POST', headers: { Authorization: `Bearer ${key}` }, body: form });
    const { id } = (await created.json()) as { id: string };
    await page.goto(`${service.url}/#/recordings/${id}`);
    await page.getByText(/produced no audio for 2 s/).waitFor({ timeout: 60_000 });
    await page.getByRole('button', { name: 'Try again' }).click();
    // A second job was queued; it fails the same way, and the page says so again.
    const jobs = () => inspectDatabase(service.dataDir, (db) => (db.prepare("SELECT count(*) AS n FROM jobs WHERE session_id = ? AND kind = 'transcribe'").get(id) as { n: number }).n);
    for (let i = 0; i < 100 && jobs() < 2; i++) await new Promise((r) => setTimeout(r, 100));
    expect(jobs()).toBe(2);
    await page.getByText(/produced no audio for 2 s/).waitFor({ timeout: 60_000 });
    expect(pageErrors).toEqual([]);
  });
});
