/**
 * What an editor meets in the first hour, end to end: real service (`npm run serve`), a real two-reader
 * recording transcribed by the default recognizer, Debian's Chromium at 1280×800. A word corrected by
 * double-click on the first try with the line panel closed (opening the panel moves nothing, typed letters go
 * into the box and never to the page's shortcuts); a new marker's default name selected, so typing replaces
 * it; a line saved whole no longer shaded doubtful; Ctrl+Z pressed while a correction saves undoes it once
 * stored; an in→out export named with its range; the transcript bar beside the line panel, the script
 * dialog's word count against the result's, its text area and file button on the dark theme. Each step is
 * checked through the API. Screenshots go to test-artifacts/screenshots/.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM } from './browser';
import { openStudio, signInWithProject, uploadAndOpen, type StudioFixture } from './studio-fixture';
import { sharedDir } from './service-process';
import { twoReadersFile } from '../helpers/two-readers';

const canRun = fs.existsSync(CHROMIUM) && fs.existsSync(path.join(sharedDir(), 'audio/asr'));
/** The studio redraws within a frame or two, but this machine is shared: polls wait up to 15 s. */
const SLOW = { timeout: 15_000 };

interface ApiSegment {
  id: number;
  start: number;
  end: number;
  confirmed?: boolean;
  words: { word: string; start: number; end: number; confidence: number }[];
}

describe.skipIf(!canRun)("an editor's first hour in the studio", { timeout: 1_800_000 }, () => {
  let f: StudioFixture;
  let page: Page;
  let sessionId = '';
  const api = async (p: string, init: RequestInit = {}) => {
    const res = await fetch(`${f.service.url}${p}`, {
      ...init,
      headers: { Authorization: `Bearer ${f.key}`, 'Content-Type': 'application/json', ...(init.headers as Record<string, string>) },
    });
    const text = await res.text();
    return { status: res.status, body: text.startsWith('{') ? JSON.parse(text) : null };
  };
  const segments = async () => (await api(`/v1/speech/transcriptions/${sessionId}`)).body.transcript.segments as ApiSegment[];
  const revisions = async () =>
    (await api(`/v1/speech/transcriptions/${sessionId}/transcript/revisions`)).body as { current: number; data: { revision: number; edit: { op: string } | null }[] };
  const markers = async () => (await api(`/v1/speech/transcriptions/${sessionId}/markers`)).body.data as { time: number; name: string }[];
  const row = (id: number) => page.locator(`[data-testid=segment][data-segment-id="${id}"]`);
  const focusPage = () => page.locator('body').click({ position: { x: 2, y: 2 } });
  const box = async (l: Locator) => {
    const b = (await l.boundingBox())!;
    return { x: Math.round(b.x), y: Math.round(b.y), width: Math.round(b.width), height: Math.round(b.height) };
  };
  /**
   * A double-click as a person makes it: two clicks 150 ms apart on the same spot (Chromium counts them as a
   * double-click up to 500 ms). Playwright's own dblclick sends both clicks at once, before the page has drawn
   * what the first click changed, so it would miss a layout that moves under the pointer.
   */
  const doubleClick = async (l: Locator) => {
    const b = (await l.boundingBox())!;
    const at = { x: b.x + b.width / 2, y: b.y + b.height / 2 };
    await page.mouse.move(at.x, at.y);
    await page.mouse.down();
    await page.mouse.up();
    await page.waitForTimeout(150);
    await page.mouse.down({ clickCount: 2 });
    await page.mouse.up({ clickCount: 2 });
  };
  const doubtfulShown = async () => Number(/(\d+) doubtful/.exec((await page.getByTestId('doubtful-count').textContent()) ?? '')?.[1]);

  beforeAll(async () => {
    f = await openStudio('details');
    page = f.page;
    await page.setViewportSize({ width: 1280, height: 800 });
    await signInWithProject(f, { name: 'First hour', key: 'e2e-first-hour' });
    sessionId = await uploadAndOpen(f, twoReadersFile(f.work));
    await page.getByTestId('word').first().waitFor({ timeout: 900_000 });
    await page.locator('html[data-interactive=true]').waitFor({ timeout: 60_000 });
  }, 1_000_000);

  afterAll(async () => {
    await f?.close();
  });

  it('opening the line panel moves nothing: the clicked word stays where it was', async () => {
    expect(await page.locator('[data-testid=segment][data-selected=true]').count()).toBe(0);
    // The last word of the last line: with the panel taking room from the transcript, every line above
    // would wrap anew and move it.
    const seg = (await segments()).at(-1)!;
    const word = row(seg.id).getByTestId('word').last();
    const before = await box(word);
    await word.click();
    await page.getByTestId('line-panel').waitFor();
    await page.waitForTimeout(300);
    expect(await box(word)).toEqual(before);
    await f.shot('60-first-hour-panel-open');
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByTestId('line-panel').count(), SLOW).toBe(0);
    expect(await box(word)).toEqual(before);
  });

  it('corrects a word by double-click on the first try with the panel closed; the typed letters go into the box', async () => {
    if (await page.getByTestId('line-panel').count()) {
      await focusPage();
      await page.keyboard.press('Escape');
    }
    await expect.poll(() => page.locator('[data-testid=segment][data-selected=true]').count(), SLOW).toBe(0);
    // A word far down the transcript, where a reflow would move it.
    const seg = (await segments()).at(-1)!;
    const index = seg.words.length - 2;
    const original = seg.words[index]!.word.trim();
    await doubleClick(row(seg.id).getByTestId('word').nth(index));
    // Typed at once, as an editor does: "m" would add a marker if it reached the page.
    await page.keyboard.type('movable');
    const input = row(seg.id).getByTestId('correction-input');
    expect(await input.count()).toBe(1);
    expect(await input.inputValue()).toBe('movable');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('correction-input');
    await f.shot('61-first-hour-word-edit');
    expect(await page.getByTestId('editor-marker').count()).toBe(0);
    expect(await markers()).toEqual([]);
    // The box stays the word's: Esc puts it back, nothing saved.
    await input.press('Escape');
    await input.waitFor({ state: 'detached' });
    expect((await segments()).find((s) => s.id === seg.id)!.words[index]!.word.trim()).toBe(original);
    expect((await revisions()).current).toBe(0);
  });

  it("selects a new marker's default name, so typing replaces it", async () => {
    await focusPage();
    await page.keyboard.press('Home');
    await page.keyboard.press('Shift+ArrowRight');
    await page.keyboard.press('m');
    const input = page.getByTestId('marker-name-input');
    await input.waitFor();
    expect(await input.inputValue()).toBe('Marker 1');
    await page.keyboard.type('Retake: door slam');
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await markers()).map((m) => m.name), SLOW).toEqual(['Retake: door slam']);
    expect(await page.getByTestId('marker-name').first().textContent()).toBe('Retake: door slam');
    // A rename offers the old name selected too.
    await page.getByTestId('marker-name').first().click();
    await page.keyboard.type('Retake: door');
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await markers()).map((m) => m.name), SLOW).toEqual(['Retake: door']);
  });

  it('a line saved whole is checked by the editor: none of its words is shaded doubtful', async () => {
    const segs = await segments();
    const doubtful = (s: ApiSegment) => s.words.filter((w) => !(w.confidence >= 0.5)).length;
    const seg = segs.filter((s) => s.words.length >= 4).sort((a, b) => doubtful(b) - doubtful(a))[0]!;
    const inLine = doubtful(seg);
    expect(inLine).toBeGreaterThan(1);
    const total = await doubtfulShown();
    await row(seg.id).getByTestId('word').first().click();
    await focusPage();
    await page.keyboard.press('F2');
    const input = row(seg.id).getByTestId('correction-input');
    await input.waitFor();
    // One word changed (the last); the others are confirmed as they are.
    const typed = seg.words.map((w, i) => (i === seg.words.length - 1 ? 'indeed' : w.word.trim())).join(' ');
    await input.fill(typed);
    await input.press('Enter');
    await input.waitFor({ state: 'detached', timeout: 60_000 });
    const saved = (await segments()).find((s) => s.id === seg.id)!;
    expect(saved.confirmed).toBe(true);
    // The unchanged words keep the recognizer's confidence in the API; the studio shades them as checked.
    expect(saved.words.slice(0, -1).map((w) => w.confidence)).toEqual(seg.words.slice(0, -1).map((w) => w.confidence));
    await expect.poll(() => row(seg.id).getAttribute('data-confirmed'), SLOW).toBe('true');
    expect(await row(seg.id).locator('.w.doubtful, .w.unsure').count()).toBe(0);
    expect(await row(seg.id).locator('.w.confirmed').count()).toBe(saved.words.length);
    await expect.poll(doubtfulShown, SLOW).toBe(total - inLine);
    await f.shot('62-first-hour-line-checked');
  });

  it('Ctrl+Z pressed while a correction is saving waits for the save, then undoes it', async () => {
    const segs = await segments();
    const seg = segs.find((s) => !s.confirmed && s.words.length >= 3)!;
    const original = seg.words[0]!.word.trim();
    const replacement = original.toLowerCase() === 'then' ? 'so' : 'then';
    const rev = (await revisions()).current;
    await row(seg.id).getByTestId('word').nth(0).dblclick();
    const input = row(seg.id).getByTestId('correction-input');
    await input.waitFor();
    await input.fill(replacement);
    // The save is held at the network until Ctrl+Z is pressed: on a quiet machine it could otherwise be stored
    // before the key arrives, and there would be no save to wait for.
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const saveUrl = new RegExp(`/transcriptions/${sessionId}/transcript/segments/${seg.id}$`);
    await page.route(saveUrl, async (route) => {
      if (route.request().method() === 'PATCH') await held;
      await route.continue();
    });
    await input.press('Enter');
    await expect.poll(() => input.isDisabled(), SLOW).toBe(true);
    await page.keyboard.press('Control+z');
    // Said at once: the undo waits for the save.
    await page.getByText('Saving the edit first; the undo follows').first().waitFor(SLOW);
    await f.shot('63-first-hour-undo-while-saving');
    release();
    await expect.poll(async () => (await revisions()).current, { timeout: 60_000 }).toBe(rev + 2);
    await page.unroute(saveUrl);
    const ops = (await revisions()).data.slice(-2).map((r) => r.edit?.op);
    expect(ops).toEqual(['edit_text', 'restore']);
    expect((await segments()).find((s) => s.id === seg.id)!.words[0]!.word.trim()).toBe(original);
    await expect.poll(() => row(seg.id).getByTestId('word').first().textContent(), SLOW).toBe(original);
  });

  it('names an in→out export with its range, the whole recording without', async () => {
    await focusPage();
    await page.keyboard.press('Home');
    await page.keyboard.press('Shift+ArrowRight');
    await page.keyboard.press('Shift+ArrowRight');
    await page.keyboard.press('i');
    await page.keyboard.press('Shift+ArrowRight');
    await page.keyboard.press('Shift+ArrowRight');
    await page.keyboard.press('o');
    await expect.poll(() => page.getByTestId('out-point').textContent(), SLOW).not.toBe('—');
    const download = async (part: boolean) => {
      await page.getByRole('button', { name: /Export/ }).click();
      if (part) await page.getByTestId('export-range').locator('input').check();
      const [file] = await Promise.all([page.waitForEvent('download'), page.locator('[data-format=srt]').click()]);
      return file.suggestedFilename();
    };
    expect(await download(false)).toBe('two-readers.srt');
    expect(await download(true)).toBe('two-readers_00h00m02.000s-00h00m04.000s.srt');
    await focusPage();
    await page.keyboard.press('Shift+X');
  });

  it("lists the recording's speakers in the order they first speak, each saying where the project first heard it", async () => {
    const segs = await segments();
    const firstStart = new Map<string, number>();
    const body = (await api(`/v1/speech/transcriptions/${sessionId}`)).body as {
      transcript: { segments: { speaker: string; start: number }[] };
      speaker_map: Record<string, { number: number; first_heard_in: { session_id: string; file_name: string } }>;
    };
    for (const s of body.transcript.segments) if (!firstStart.has(s.speaker)) firstStart.set(s.speaker, s.start);
    const order = [...firstStart.keys()].sort((a, b) => firstStart.get(a)! - firstStart.get(b)!);
    expect(segs.length).toBeGreaterThan(0);
    const items = page.getByTestId('speaker-item');
    expect(await items.evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.label))).toEqual(order);
    // The project numbers voices as it first hears them: this recording's, in order, here.
    expect(order.map((l) => body.speaker_map[l]!.number)).toEqual(order.map((_, i) => i + 1));
    for (const label of order) {
      const entry = body.speaker_map[label]!;
      expect(entry.first_heard_in).toEqual({ session_id: sessionId, file_name: 'two-readers.flac' });
      const item = page.locator(`[data-testid=speaker-item][data-label="${label}"]`);
      expect(await item.getByTestId('speaker-first-heard').textContent()).toBe(`voice ${entry.number} of the project · first heard here`);
    }
    const legend = await page.locator('.speakers-legend > span').allTextContents();
    expect(legend).toEqual(order.map((l) => (body.speaker_map[l] as unknown as { name: string }).name));
    await f.shot('66-first-hour-speakers');
  });

  it('keeps the transcript bar whole beside the line panel at 1280×800 and 1440×900', async () => {
    for (const size of [
      { width: 1280, height: 800 },
      { width: 1440, height: 900 },
    ]) {
      await page.setViewportSize(size);
      await page.getByTestId('word').first().click();
      await page.getByTestId('line-panel').waitFor();
      await page.waitForTimeout(300);
      const bar = await page.locator('.transcript-tools').evaluate((el) => {
        const search = el.querySelector('input')!;
        // The placeholder's width as drawn in the field's font.
        const ctx = document.createElement('canvas').getContext('2d')!;
        const style = getComputedStyle(search);
        ctx.font = `${style.fontSize} ${style.fontFamily}`;
        const pad = parseFloat(style.paddingLeft) + parseFloat(style.paddingRight);
        const buttons = [...el.querySelectorAll('button')].map((b) => {
          const r = b.getBoundingClientRect();
          const st = getComputedStyle(b);
          const content = b.clientHeight - parseFloat(st.paddingTop) - parseFloat(st.paddingBottom);
          return { text: b.textContent, top: Math.round(r.top), lines: Math.round(content / parseFloat(st.lineHeight)) };
        });
        const note = el.querySelector('[data-testid=learning-note]') as HTMLElement | null;
        return {
          searchRoom: search.clientWidth - pad,
          placeholder: ctx.measureText(search.placeholder).width,
          searchTop: Math.round(search.getBoundingClientRect().top),
          buttons,
          noteCut: note ? note.scrollWidth > note.clientWidth + 1 : false,
        };
      });
      console.info(`transcript bar at ${size.width}×${size.height}: ${JSON.stringify(bar)}`);
      expect(bar.searchRoom).toBeGreaterThanOrEqual(bar.placeholder);
      for (const b of bar.buttons) expect(b.lines, `${b.text} on one line`).toBe(1);
      expect(new Set(bar.buttons.map((b) => b.top)).size).toBe(1);
      expect(bar.noteCut).toBe(false);
      await f.shot(`64-first-hour-bar-${size.width}`);
      await page.keyboard.press('Escape');
    }
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it("counts a script's words as the result does; its text area and file button are the dark theme's", async () => {
    await page.getByTestId('open-align').click();
    const dialog = page.getByTestId('align-dialog');
    await dialog.waitFor();
    const looks = await dialog.evaluate((el) => {
      const area = el.querySelector('textarea')!;
      const file = el.querySelector('input[type=file]')!;
      const button = getComputedStyle(file, '::file-selector-button');
      const bg = getComputedStyle(document.documentElement).getPropertyValue('--bg').trim();
      const panel2 = getComputedStyle(document.documentElement).getPropertyValue('--panel-2').trim();
      const rgb = (hex: string) => `rgb(${[1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)).join(', ')})`;
      return { area: getComputedStyle(area).backgroundColor, bg: rgb(bg), button: button.backgroundColor, panel2: rgb(panel2), buttonRadius: button.borderRadius };
    });
    expect(looks.area).toBe(looks.bg);
    expect(looks.button).toBe(looks.panel2);
    expect(looks.buttonRadius).toBe('6px');
    // A script with colons inside its lines, a label of two words and punctuation standing alone.
    const script = [
      'Dr. Grey: Resulting in the only sense with which we are at present concerned: differs from most —',
      'if not from all the arts and crafts represented in the exhibition.',
    ].join('\n');
    await dialog.getByTestId('script-text').fill(script);
    const shown = Number(/(\d+) words/.exec((await dialog.getByTestId('align-state').textContent()) ?? '')?.[1]);
    await f.shot('65-first-hour-script');
    await dialog.getByTestId('align-run').click();
    await dialog.getByTestId('align-result').waitFor({ timeout: 300_000 });
    const result = Number(await dialog.getByTestId('align-words').textContent());
    console.info(`script words: the dialog said ${shown}, the result ${result}`);
    expect(shown).toBe(result);
    expect(f.consoleErrors).toEqual([]);
  });
});
