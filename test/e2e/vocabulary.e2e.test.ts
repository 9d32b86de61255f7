/**
 * The project's vocabulary box end to end: real service (`npm run serve` with the shared models), Debian's
 * Chromium. An editor types the names a recording uses, sees a term the service refuses explained beside
 * the box, saves, finds the terms again after a reload (and in the API), then uploads a real recording that
 * says those names: the studio's transcript writes them as typed. The same recording in a project without
 * the vocabulary does not (checked through the API, so the test shows the box is what made the difference).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM } from './browser';
import { sharedDir } from './service-process';
import { openStudio, signInWithProject, uploadAndOpen, type StudioFixture } from './studio-fixture';

/** "In fourteen sixty-five Sweynheim and Pannartz began printing in the monastery of Subiaco near Rome," */
const RECORDING = path.join(sharedDir(), 'audio/asr/ljspeech_LJ001-0031.flac');
const TERMS = ['Sweynheim', 'Pannartz', 'Subiaco'];
const canRun = fs.existsSync(CHROMIUM) && fs.existsSync(RECORDING);

describe.skipIf(!canRun)('project vocabulary in the studio', { timeout: 420_000 }, () => {
  let f: StudioFixture;
  const box = () => f.page.getByLabel('Vocabulary terms');
  const save = () => f.page.getByRole('button', { name: 'Save vocabulary' });
  const api = async (p: string, init: RequestInit = {}) =>
    fetch(`${f.service.url}${p}`, { ...init, headers: { Authorization: `Bearer ${f.key}`, ...(init.headers as Record<string, string>) } });

  beforeAll(async () => {
    f = await openStudio('vocabulary');
  }, 180_000);

  afterAll(() => f?.close());

  it('explains a term the service refuses and keeps what is stored', async () => {
    await signInWithProject(f, { name: 'Printing history', key: 'printing-history' });
    await expect.poll(() => box().isEnabled()).toBe(true);
    expect(await box().inputValue()).toBe('');
    await box().fill('Sweynheim\n<script>');
    await save().click();
    const error = f.page.getByTestId('vocabulary').getByRole('alert');
    await error.waitFor();
    expect(await error.textContent()).toMatch(/letters, digits/);
    const stored = await (await api('/v1/speech/projects/printing-history/vocabulary')).json();
    expect(stored.terms).toEqual([]);
  });

  it('saves the terms, one per line, and shows them again after a reload', async () => {
    await box().fill(`${TERMS.join('\n')}\nsweynheim`);
    await save().click();
    // Repeats (ignoring case) are dropped, the first spelling kept.
    await f.page.getByRole('status').filter({ hasText: 'Vocabulary saved (3 terms)' }).waitFor();
    expect(await box().inputValue()).toBe(TERMS.join('\n'));
    expect(await save().isDisabled()).toBe(true);
    expect((await (await api('/v1/speech/projects/printing-history/vocabulary')).json()).terms).toEqual(TERMS);
    await f.page.reload();
    await expect.poll(() => box().inputValue()).toBe(TERMS.join('\n'));
    await f.shot('40-vocabulary-saved');
  });

  it("transcribes a new recording with the project's names, spelled as typed", async () => {
    const sessionId = await uploadAndOpen(f, RECORDING);
    expect(sessionId).not.toBe('');
    await f.page.getByTestId('word').first().waitFor({ timeout: 240_000 });
    const words = (await f.page.getByTestId('word').allTextContents()).map((w) => w.replace(/[^\p{L}]/gu, ''));
    expect(words).toContain('Sweynheim');
    expect(words).toContain('Pannartz');
    await f.shot('41-vocabulary-transcript');

    // The same recording where no vocabulary is set: the names are not written.
    const form = new FormData();
    form.append('project_key', 'no-vocabulary');
    form.append('file', new Blob([fs.readFileSync(RECORDING)]), path.basename(RECORDING));
    const id = (await (await api('/v1/speech/transcriptions', { method: 'POST', body: form })).json()).id as string;
    let plain: { status: string; transcript: { text: string } | null } = { status: 'queued', transcript: null };
    for (let i = 0; i < 480 && plain.status !== 'complete' && plain.status !== 'failed'; i++) {
      await new Promise((r) => setTimeout(r, 500));
      plain = await (await api(`/v1/speech/transcriptions/${id}`)).json();
    }
    expect(plain.status).toBe('complete');
    expect(plain.transcript!.text).not.toMatch(/sweynheim|pannartz/i);
  });

  it('raised no page errors', () => {
    expect(f.consoleErrors).toEqual([]);
  });
});
