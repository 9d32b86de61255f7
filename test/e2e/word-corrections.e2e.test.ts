/**
 * Word corrections in the studio, end to end: real service (`npm run serve`), a real two-reader recording
 * transcribed by the default recognizer, Debian's Chromium. The doubtful-word count and Tab walk, a word
 * corrected in place (double-click, type, Enter) while its line loops, a line edit put back with Esc,
 * undo and redo (Ctrl+Z / Ctrl+Shift+Z), a stale revision (409) reloaded and saved again, find and
 * replace with its preview, and a dropped .txt script aligned. Each step is checked through the API.
 * Screenshots go to test-artifacts/screenshots/.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM } from './browser';
import { openStudio, signInWithProject, uploadAndOpen, type StudioFixture } from './studio-fixture';
import { sharedDir } from './service-process';
import { twoReadersFile } from '../helpers/two-readers';

const canRun = fs.existsSync(CHROMIUM) && fs.existsSync(path.join(sharedDir(), 'audio/asr'));
const CLIPS = ['ljspeech_LJ001-0001', 'amateur_LJ001-0010', 'ljspeech_LJ001-0003', 'amateur_LJ001-0035'];

interface ApiWord {
  word: string;
  start: number;
  end: number;
  confidence: number;
}
interface ApiSegment {
  id: number;
  start: number;
  end: number;
  words: ApiWord[];
}

describe.skipIf(!canRun)('word corrections in the studio', { timeout: 600_000 }, () => {
  let f: StudioFixture;
  let page: Page;
  let sessionId = '';
  const api = async (p: string, init: RequestInit = {}) => {
    const res = await fetch(`${f.service.url}${p}`, {
      ...init,
      headers: { Authorization: `Bearer ${f.key}`, 'Content-Type': 'application/json', ...(init.headers as Record<string, string>) },
    });
    return { status: res.status, body: await res.json() };
  };
  const segments = async () => (await api(`/v1/speech/transcriptions/${sessionId}`)).body.transcript.segments as ApiSegment[];
  const revisions = async () =>
    (await api(`/v1/speech/transcriptions/${sessionId}/transcript/revisions`)).body as { current: number; data: { revision: number; edit: { op: string } | null }[] };
  const words = (segs: ApiSegment[]) => segs.flatMap((s) => s.words.map((w) => w.word.trim()));
  /** Words as the service counts them: split at spaces, compared without case and outer punctuation. */
  const normal = (t: string) =>
    t
      .toLowerCase()
      .split(/\s+/)
      .map((w) => w.replace(/^[^a-z0-9']+|[^a-z0-9']+$/g, ''))
      .filter(Boolean);
  /** The transport readout (clock time, no timebase set: HH:MM:SS.mmm) in seconds. */
  const readoutSeconds = (text: string) => {
    const m = /(\d+):(\d+):(\d+(?:\.\d+)?)/.exec(text);
    if (!m) throw new Error(`unreadable readout ${text}`);
    return Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]);
  };
  const row = (id: number) => page.locator(`[data-testid=segment][data-segment-id="${id}"]`);

  beforeAll(async () => {
    // Speaker adaptation learns from 5 s of a speaker (30 by default): each of the two readers has about 15 s here.
    f = await openStudio('words', { TAKELINE_ADAPTATION_MIN_SECONDS: '5' });
    page = f.page;
    await signInWithProject(f, { name: 'Corrections', key: 'e2e-words' });
    sessionId = await uploadAndOpen(f, twoReadersFile(f.work));
    await page.getByTestId('word').first().waitFor({ timeout: 300_000 });
    await page.locator('html[data-interactive=true]').waitFor({ timeout: 60_000 });
  }, 420_000);

  afterAll(async () => {
    await f?.close();
  });

  it('shades words by confidence, counts the doubtful ones and walks them with Tab', async () => {
    const segs = await segments();
    const all = segs.flatMap((s) => s.words);
    const doubtful = all.filter((w) => w.confidence < 0.5).length;
    const unsure = all.filter((w) => w.confidence >= 0.5 && w.confidence < 0.8).length;
    console.log(`recognized ${all.length} words: ${doubtful} doubtful (<0.5), ${unsure} unsure (0.5–0.8)`);
    expect(await page.getByTestId('doubtful-count').textContent()).toBe(`${doubtful} doubtful ${doubtful === 1 ? 'word' : 'words'}`);
    expect(await page.locator('[data-testid=word].doubtful').count()).toBe(
      (await page.getByTestId('word').evaluateAll((els) => els.filter((e) => Number((e as HTMLElement).dataset.confidence) < 0.5).length)),
    );
    await page.locator('body').click({ position: { x: 2, y: 2 } });
    await page.keyboard.press('Tab');
    if (doubtful === 0) {
      await page.getByText('No doubtful words left').waitFor();
      return;
    }
    const focused = page.locator('[data-testid=word].focus');
    await focused.waitFor();
    // The first doubtful word of the transcript, and the playhead at it.
    const first = segs.flatMap((s) => s.words).find((w) => w.confidence < 0.5)!;
    expect(Number(await focused.getAttribute('data-start'))).toBeCloseTo(first.start, 3);
    expect(Number(await focused.getAttribute('data-confidence'))).toBeLessThan(0.5);
    await f.shot('40-words-doubtful');
    if (doubtful > 1) {
      await page.keyboard.press('Tab');
      await expect.poll(async () => Number(await focused.getAttribute('data-start'))).toBeGreaterThan(first.start);
      await page.keyboard.press('Shift+Tab');
      await expect.poll(async () => Number(await focused.getAttribute('data-start'))).toBeCloseTo(first.start, 3);
    }
  });

  it('corrects a word in place: double-click, type while the line loops, Enter saves a revision', async () => {
    const before = await segments();
    const seg = before.find((s) => s.words.length >= 4)!;
    const index = 1;
    const original = seg.words[index]!.word.trim();
    const replacement = original.toLowerCase() === 'printing' ? 'pressing' : 'printing';
    await row(seg.id).getByTestId('word').nth(index).dblclick();
    const input = page.getByTestId('correction-input');
    await input.waitFor();
    expect(await input.inputValue()).toBe(original);
    // The line plays while it is edited, in a loop: sampled for longer than the line, the playhead stays in it and wraps.
    await expect.poll(() => page.getByTestId('shuttle').textContent(), { timeout: 10_000 }).toBe('▶ 1×');
    const samples: number[] = [];
    const until = Date.now() + (seg.end - seg.start) * 1000 + 1500;
    while (Date.now() < until) {
      samples.push(readoutSeconds((await page.getByTestId('readout').textContent()) ?? ''));
      await page.waitForTimeout(200);
    }
    console.log(`line ${seg.start}–${seg.end} s while editing: playhead ${samples.map((t) => t.toFixed(2)).join(' ')}`);
    for (const t of samples) {
      expect(t).toBeGreaterThanOrEqual(seg.start - 0.05);
      expect(t).toBeLessThanOrEqual(seg.end + 0.35);
    }
    expect(samples.some((t, i) => i > 0 && t < samples[i - 1]!)).toBe(true);
    // Alt+L and Alt+K drive the shuttle; the letters do not type.
    await input.press('Alt+l');
    await expect.poll(() => page.getByTestId('shuttle').textContent()).toBe('▶ 2×');
    await input.press('Alt+k');
    await expect.poll(() => page.getByTestId('shuttle').textContent()).toBe('■');
    expect(await input.inputValue()).toBe(original);
    await input.fill(replacement);
    await f.shot('41-words-editing');
    await input.press('Enter');
    await input.waitFor({ state: 'detached', timeout: 60_000 });
    const after = await segments();
    const line = after.find((s) => s.id === seg.id)!;
    expect(line.words[index]!.word.trim()).toBe(replacement);
    // Unchanged words keep the recognizer's timings.
    for (const i of [0, ...seg.words.keys()].filter((i) => i !== index && i < line.words.length && line.words.length === seg.words.length))
      expect([line.words[i]!.start, line.words[i]!.end]).toEqual([seg.words[i]!.start, seg.words[i]!.end]);
    const w = line.words[index]!;
    expect(w.start).toBeGreaterThanOrEqual(line.start);
    expect(w.end).toBeLessThanOrEqual(line.end);
    expect((await revisions()).data.at(-1)!.edit!.op).toBe('edit_text');
    expect(await row(seg.id).getByTestId('word').nth(index).textContent()).toBe(replacement);
    await f.shot('42-words-corrected');
  });

  it('puts a line back with Escape (F2 edits the line at the playhead): nothing saved', async () => {
    const rev = (await revisions()).current;
    const segs = await segments();
    const seg = segs[0]!;
    await page.getByTestId('word').first().click();
    await page.locator('body').click({ position: { x: 2, y: 2 } });
    await page.keyboard.press('F2');
    const input = page.getByTestId('correction-input');
    await input.waitFor();
    expect(await input.inputValue()).toBe(seg.words.map((w) => w.word.trim()).join(' '));
    await input.fill('nothing of this is kept');
    await input.press('Escape');
    await input.waitFor({ state: 'detached' });
    expect((await revisions()).current).toBe(rev);
    expect(words(await segments())).toEqual(words(segs));
  });

  it('undoes and redoes with Ctrl+Z and Ctrl+Shift+Z through revisions', async () => {
    const corrected = words(await segments());
    const rev = (await revisions()).current;
    const original = (await api(`/v1/speech/transcriptions/${sessionId}/transcript/revisions/${rev - 1}`)).body.transcript.segments as ApiSegment[];
    await page.locator('body').click({ position: { x: 2, y: 2 } });
    await page.keyboard.press('Control+z');
    await expect.poll(async () => (await revisions()).current).toBe(rev + 1);
    expect(words(await segments())).toEqual(words(original));
    await page.keyboard.press('Control+Shift+z');
    await expect.poll(async () => (await revisions()).current).toBe(rev + 2);
    expect(words(await segments())).toEqual(corrected);
    const ops = (await revisions()).data.slice(-2).map((r) => r.edit?.op);
    expect(ops).toEqual(['restore', 'restore']);
    // The studio shows what the API has.
    await expect.poll(async () => (await page.getByTestId('word').allTextContents()).length).toBeGreaterThan(0);
  });

  it('says so when the transcript changed elsewhere (409), reloads, and saves on the new revision', async () => {
    const segs = await segments();
    const seg = segs.find((s) => s.words.length >= 3 && s.id !== segs[0]!.id) ?? segs[0]!;
    await row(seg.id).getByTestId('word').nth(0).dblclick();
    const input = page.getByTestId('correction-input');
    await input.waitFor();
    await input.press('Alt+k');
    // Another client edits the first line meanwhile.
    const other = await api(`/v1/speech/transcriptions/${sessionId}/transcript/segments/${segs[0]!.id}`, {
      method: 'PATCH',
      body: JSON.stringify({ text: segs[0]!.words.map((w) => w.word.trim()).join(' ') + ' indeed' }),
    });
    expect(other.status).toBe(200);
    const rev = (await revisions()).current;
    await input.fill('And');
    await input.press('Enter');
    await expect.poll(() => page.getByTestId('correction-error').textContent()).toMatch(/changed elsewhere .*revision \d+.*reloaded/);
    expect((await revisions()).current).toBe(rev);
    await f.shot('43-words-stale');
    expect(await input.inputValue()).toBe('And');
    await input.press('Enter');
    await input.waitFor({ state: 'detached', timeout: 60_000 });
    expect((await revisions()).current).toBe(rev + 1);
    expect((await segments()).find((s) => s.id === seg.id)!.words[0]!.word.trim()).toBe('And');
  });

  it('finds and replaces with a preview, as one revision', async () => {
    const segs = await segments();
    const counts = new Map<string, number>();
    for (const w of words(segs)) counts.set(w.toLowerCase(), (counts.get(w.toLowerCase()) ?? 0) + 1);
    const [find] = [...counts].filter(([w]) => /^[a-z]{2,}$/.test(w)).sort((a, b) => b[1] - a[1])[0]!;
    const preview = (await api(`/v1/speech/transcriptions/${sessionId}/transcript/replace`, {
      method: 'POST',
      body: JSON.stringify({ find, replace: 'Siobhan', whole_words: true, preview: true }),
    })).body as { count: number };
    expect(preview.count).toBeGreaterThan(0);
    const rev = (await revisions()).current;
    await page.getByTestId('open-replace').click();
    const dialog = page.getByTestId('replace-dialog');
    await dialog.getByTestId('replace-find').fill(find);
    await dialog.getByTestId('replace-with').fill('Siobhan');
    await expect.poll(() => dialog.getByTestId('replace-count').textContent()).toBe(`${preview.count} ${preview.count === 1 ? 'match' : 'matches'}`);
    expect(await dialog.getByTestId('replace-match').count()).toBe(preview.count);
    expect(await dialog.getByTestId('replace-match').first().textContent()).toMatch(/→ .*Siobhan/);
    await f.shot('44-words-replace-preview');
    // A preview changes nothing.
    expect((await revisions()).current).toBe(rev);
    await dialog.getByTestId('replace-apply').click();
    await dialog.waitFor({ state: 'detached', timeout: 60_000 });
    const list = await revisions();
    expect(list.current).toBe(rev + 1);
    expect(list.data.at(-1)!.edit!.op).toBe('replace');
    const now = words(await segments());
    expect(now.filter((w) => w === 'Siobhan').length).toBe(preview.count);
    expect(now.filter((w) => w.toLowerCase() === find).length).toBe(0);
    await expect.poll(() => page.locator('[data-testid=word]', { hasText: 'Siobhan' }).count()).toBeGreaterThan(0);
  });

  it('replaces across the project: preview per recording, then this recording gets a revision', async () => {
    const count = words(await segments()).filter((w) => w === 'Siobhan').length;
    expect(count).toBeGreaterThan(0);
    const rev = (await revisions()).current;
    await page.getByTestId('open-replace').click();
    const dialog = page.getByTestId('replace-dialog');
    await dialog.getByTestId('replace-project').check();
    await dialog.getByTestId('replace-find').fill('Siobhan');
    await dialog.getByTestId('replace-with').fill('Shivaun');
    await expect.poll(() => dialog.getByTestId('replace-count').textContent()).toBe(`${count} ${count === 1 ? 'match' : 'matches'} in 1 recording`);
    expect(await dialog.getByTestId('replace-match').first().textContent()).toMatch(/^two-readers\.flac, line \d+: Siobhan → Shivaun$/);
    await f.shot('45-words-replace-project');
    await dialog.getByTestId('replace-apply').click();
    await expect.poll(() => dialog.getByTestId('replace-count').textContent(), { timeout: 60_000 }).toBe(`Replaced ${count} in 1 recording`);
    const list = await revisions();
    expect(list.current).toBe(rev + 1);
    expect(list.data.at(-1)!.edit!.op).toBe('replace');
    expect(words(await segments()).filter((w) => w === 'Shivaun').length).toBe(count);
    await expect.poll(() => page.locator('[data-testid=word]', { hasText: 'Shivaun' }).count()).toBe(count);
    await dialog.getByRole('button', { name: 'Close' }).click();
    await dialog.waitFor({ state: 'detached' });
  });

  it('aligns a dropped .txt script to the recording', async () => {
    const refs = new Map(
      fs
        .readFileSync(path.join(sharedDir(), 'audio/asr/refs.tsv'), 'utf8')
        .split('\n')
        .map((l) => l.split('\t'))
        .map((c) => [c[0]!.replace(/\.flac$/, ''), c[2] ?? ''] as const),
    );
    const script = CLIPS.map((c) => refs.get(c)!).join('\n');
    const rev = (await revisions()).current;
    await page.getByTestId('open-align').click();
    const dialog = page.getByTestId('align-dialog');
    await dialog.waitFor();
    const drop = await page.evaluateHandle((text) => {
      const dt = new DataTransfer();
      dt.items.add(new File([text], 'script.txt', { type: 'text/plain' }));
      return dt;
    }, script);
    await dialog.getByTestId('script-drop').dispatchEvent('drop', { dataTransfer: drop });
    await expect.poll(() => dialog.getByTestId('script-text').inputValue()).toBe(script);
    await dialog.getByTestId('align-run').click();
    await expect.poll(() => dialog.getByTestId('align-state').textContent(), { timeout: 10_000 }).toMatch(/Aligning \d+ words/);
    await f.shot('46-words-aligning');
    await dialog.getByTestId('align-result').waitFor({ timeout: 300_000 });
    const scriptWords = normal(script);
    expect(Number(await dialog.getByTestId('align-words').textContent())).toBe(scriptWords.length);
    const aligned = Number(await dialog.getByTestId('align-aligned').textContent());
    const interpolated = Number(await dialog.getByTestId('align-interpolated').textContent());
    console.log(`script of ${scriptWords.length} words: ${aligned} aligned, ${interpolated} interpolated`);
    expect(aligned + interpolated).toBe(scriptWords.length);
    await f.shot('47-words-aligned');
    const list = await revisions();
    expect(list.current).toBe(rev + 1);
    expect(list.data.at(-1)!.edit!.op).toBe('align_script');
    const segs = await segments();
    expect(normal(words(segs).join(' '))).toEqual(scriptWords);
    // Every word timed, in order.
    const all = segs.flatMap((s) => s.words);
    for (let i = 1; i < all.length; i++) expect(all[i]!.start).toBeGreaterThanOrEqual(all[i - 1]!.start);
    await dialog.getByRole('button', { name: 'Done' }).click();
    await expect.poll(async () => normal((await page.getByTestId('word').allTextContents()).join(' ')).slice(0, 5)).toEqual(scriptWords.slice(0, 5));
    await page.getByRole('button', { name: 'Keyboard shortcuts' }).click();
    await page.getByTestId('shortcut-sheet').getByText('Next / previous doubtful word').waitFor();
    await f.shot('48-words-shortcuts');
    await page.keyboard.press('Escape');
    expect(f.consoleErrors).toEqual([]);
  });

  it('says what the corrections taught the recognizer, as the project\'s speakers say it', async () => {
    interface ProjectSpeaker {
      id: string;
      name: string | null;
      label: string;
      adaptation?: { corrected_seconds: number } | null;
    }
    // Speaker adaptation learns the corrected and aligned lines in the background; the note reads the project
    // again for a while after each revision, so it appears once the job has stored what it learnt.
    const note = page.getByTestId('learning-note');
    await expect
      .poll(async () => ((await note.count()) > 0 ? await note.textContent() : ''), { timeout: 240_000, interval: 2000 })
      .toMatch(/^\d+ corrected (second|minute)s? of /);
    const learnt = async () => ((await api('/v1/speech/projects/e2e-words')).body.speakers as ProjectSpeaker[]).filter((s) => (s.adaptation?.corrected_seconds ?? 0) > 0);
    // A second speaker's adaptation may finish after the first's note appeared (adaptation is deferred work, below
    // the decoders): the note catches up on its next read of the project.
    await expect
      .poll(async () => {
        const shown = (await note.textContent()) ?? '';
        return (await learnt()).every((s) => shown.includes(s.name || s.label));
      }, { timeout: 120_000, interval: 2000 })
      .toBe(true);
    const taught = await learnt();
    expect(taught.length, 'a project speaker learnt from corrected lines').toBeGreaterThan(0);
    const text = (await note.textContent()) ?? '';
    console.log(`learning note: ${text}; corrected seconds: ${taught.map((s) => `${s.name || s.label} ${s.adaptation!.corrected_seconds.toFixed(1)}`).join(', ')}`);
    for (const s of taught) expect(text).toContain(s.name || s.label);
    // The bar may cut the note short; its whole text is on hover.
    expect(await note.getAttribute('title')).toContain(text);
    await f.shot('48b-words-learning-note');
  });

  it('keeps the correction tools inside a narrow transcript column (1280×800, line panel open)', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.getByTestId('word').first().click();
    await page.locator('[data-testid=segment][data-selected=true]').waitFor();
    const panel = (await page.locator('.transcript-panel').boundingBox())!;
    for (const id of ['doubtful-count', 'open-replace', 'open-align']) {
      const box = (await page.getByTestId(id).boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(panel.x);
      expect(box.x + box.width).toBeLessThanOrEqual(panel.x + panel.width + 0.5);
    }
    await f.shot('49-words-narrow');
  });
});
