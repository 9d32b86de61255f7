/**
 * The dubbing supervisor's workflow in the studio, end to end: real service (`npm run serve`),
 * a real two-reader recording transcribed by the default recognizer, Debian's Chromium. A dub of the
 * recording itself from the recording view; every time on the recording's timebase (29.97 drop frame from
 * 00:59:59;00); lines retimed and moved by dragging on the waveform (kept between their neighbours, on
 * frames); split at the playhead, merge with the next line, undo and redo by keys and buttons; review status
 * by keys (A approves and goes on, N asks for changes and opens the notes), notes, counts and "lines left"
 * from the API's `?left=true`; a refused edit of lines changed elsewhere (a clear message, a reload, the
 * typed text kept); per-line speed and what a line that did not fit needs. Each step is checked through the
 * API. Screenshots go to test-artifacts/screenshots/ (dubflow-*.png).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { secondsToTimecode } from '../../src/shared/timecode';
import { CHROMIUM } from './browser';
import { sharedDir } from './service-process';
import { openStudio, type StudioFixture } from './studio-fixture';
import { twoReadersFile } from '../helpers/two-readers';

const canRun = fs.existsSync(CHROMIUM) && fs.existsSync(path.join(sharedDir(), 'audio/asr'));
const CLOCK = { frameRate: '29.97' as const, dropFrame: true, startTimecode: '00:59:59;00' };
const FRAME = 1001 / 30000;

interface Line {
  id: number;
  start: number;
  end: number;
  text: string;
  original_text: string;
  state: string;
  speed: number | null;
  review_status: string;
  notes: Array<{ author: string; text: string }>;
  words: Array<{ word: string; start: number; end: number }>;
  revision: number;
  effective_voice: string | null;
  render: { take_id?: string | null; flags: string[]; synthesized_duration: number; slot: { start: number; end: number }; overflow: number; line_start: number; line_end: number } | null;
}

describe.skipIf(!canRun)('the dubbing workflow in the studio', { timeout: 600_000 }, () => {
  let f: StudioFixture;
  let page: Page;
  let sessionId = '';
  let dubId = '';
  const api = async (p: string, init: RequestInit = {}) => {
    const res = await fetch(`${f.service.url}${p}`, {
      ...init,
      headers: { Authorization: `Bearer ${f.key}`, ...(typeof init.body === 'string' ? { 'Content-Type': 'application/json' } : {}), ...(init.headers as Record<string, string>) },
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  const dubPath = () => `/v1/speech/transcriptions/${sessionId}/dubs/${dubId}`;
  const lines = async (query = ''): Promise<Line[]> => (await api(`${dubPath()}/lines${query}`)).body.data;
  const row = (id: number) => page.locator(`[data-testid=dub-line][data-line="${id}"]`);
  const rowIds = async () => (await page.getByTestId('dub-line').evaluateAll((els) => els.map((e) => Number((e as HTMLElement).dataset.line))));
  /** A line's region on the waveform (wavesurfer draws it in its shadow root; Playwright's CSS pierces it). */
  const region = (id: number) => page.locator(`[part~="seg-${id}"]`);
  /** A region's box once two reads 150 ms apart agree (the waveform redraws regions after each change). */
  const settledBox = async (locator: ReturnType<typeof region>) => {
    let last = await locator.boundingBox();
    for (let i = 0; i < 20; i++) {
      await new Promise((r) => setTimeout(r, 150));
      const now = await locator.boundingBox();
      if (now && last && now.x === last.x && now.width === last.width) return now;
      last = now;
    }
    return last!;
  };
  const pressOnBody = async (key: string) => {
    await page.locator('body').click({ position: { x: 3, y: 3 } });
    await page.keyboard.press(key);
  };
  const toastText = async () => (await page.getByTestId('toast').allTextContents()).join(' | ');

  beforeAll(async () => {
    f = await openStudio('dubflow');
    page = f.page;
    const form = new FormData();
    form.append('project_key', 'e2e-dubflow');
    form.append('project_name', 'Dub workflow');
    form.append('file', await fs.openAsBlob(twoReadersFile(f.work)), 'two-readers.flac');
    sessionId = (await api('/v1/speech/transcriptions', { method: 'POST', body: form })).body.id;
    for (let i = 0; i < 1200; i++) {
      const s = (await api(`/v1/speech/transcriptions/${sessionId}`)).body;
      if (s.status === 'complete' || s.status === 'failed') break;
      await new Promise((r) => setTimeout(r, 250));
    }
    // The editor's timebase: 29.97 drop frame, starting a second before the hour.
    const media = await api(`/v1/speech/transcriptions/${sessionId}/media`, {
      method: 'PATCH',
      body: JSON.stringify({ frame_rate: '29.97', drop_frame: true, start_timecode: '00:59:59;00', tape: 'A001' }),
    });
    expect(media.status).toBe(200);
    await page.goto(f.service.signInUrl);
    await page.waitForURL(`${f.service.url}/`);
  }, 420_000);

  afterAll(async () => {
    await f?.close();
  });

  it('adds a dub of the recording itself from the recording view, and shows it once its lines are ready', async () => {
    await page.goto(`${f.service.url}/#/recordings/${sessionId}`);
    await page.getByTestId('dub-from-recording').click();
    await page.waitForURL(/#\/recordings\/[^/]+\/dubs\/[^/]+$/);
    dubId = /dubs\/([^/]+)$/.exec(page.url())![1]!;
    const dub = (await api(dubPath())).body;
    expect(dub).toMatchObject({ source: 'recording' });
    await page.locator('[data-testid=waveform][data-ready=true]').waitFor({ timeout: 60_000 });
    const all = await lines();
    const transcript = (await api(`/v1/speech/transcriptions/${sessionId}`)).body.transcript.segments;
    console.log(`dub from the recording: ${all.length} lines from ${transcript.length} transcript segments`);
    expect(all.length).toBeGreaterThanOrEqual(3);
    await expect.poll(rowIds).toEqual(all.map((l) => l.id));
    expect(await row(all[0]!.id).getByTestId('original-text').textContent()).toBe(all[0]!.original_text);
    expect(await page.getByTestId('playing-revision').textContent()).toBe('Revision 1 (the recording)');
    await f.shot('dubflow-01-from-recording');
  });

  it("shows every time on the recording's timebase and steps frames with the recording view's keys", async () => {
    const all = await lines();
    for (const l of all) {
      expect(await row(l.id).getByTestId('line-in').textContent()).toBe(secondsToTimecode(l.start, CLOCK));
      expect(await row(l.id).getByTestId('line-out').textContent()).toBe(secondsToTimecode(l.end, CLOCK));
    }
    expect(await page.getByTestId('dub-timebase').textContent()).toBe('29.97 DF from 00:59:59;00');
    expect(await page.getByTestId('readout').textContent()).toBe('00:59:59;00');
    await pressOnBody('ArrowRight');
    await expect.poll(() => page.getByTestId('readout').textContent()).toBe('00:59:59;01');
    await page.keyboard.press('Shift+ArrowRight');
    await expect.poll(() => page.getByTestId('readout').textContent()).toBe(secondsToTimecode(FRAME + 1, CLOCK));
    await page.keyboard.press('l');
    await expect.poll(() => page.getByTestId('shuttle').textContent()).toBe('▶ 1×');
    await page.keyboard.press('k');
    await expect.poll(() => page.getByTestId('shuttle').textContent()).not.toBe('▶ 1×');
    await page.keyboard.press('Home');
    await expect.poll(() => page.getByTestId('readout').textContent()).toBe('00:59:59;00');
  });

  it('retimes a line by dragging its end, and moves a line whole, never past its neighbour, on frames', async () => {
    const [a, b] = await lines();
    // The waveform's scale, from line a's region as drawn.
    const box = (await region(a!.id).boundingBox())!;
    const pxPerSecond = box.width / (a!.end - a!.start);
    // The end handle of line a, dragged 0.5 s to the left.
    const handle = region(a!.id).locator('[part~="region-handle-right"]');
    const h = (await handle.boundingBox())!;
    const dx = Math.round(0.5 * pxPerSecond);
    await page.mouse.move(h.x + h.width / 2, h.y + h.height / 2);
    await page.mouse.down();
    for (let i = 1; i <= 5; i++) await page.mouse.move(h.x + h.width / 2 - (dx * i) / 5, h.y + h.height / 2);
    await page.mouse.up();
    await expect.poll(async () => (await lines())[0]!.end, { timeout: 10_000 }).toBeLessThan(a!.end - 0.2);
    const retimed = (await lines())[0]!;
    expect(retimed.start).toBe(a!.start);
    expect(Math.abs(retimed.end - (a!.end - dx / pxPerSecond))).toBeLessThan(2 * FRAME + 1 / pxPerSecond);
    expect(Math.abs(retimed.end / FRAME - Math.round(retimed.end / FRAME))).toBeLessThan(1e-3);
    await expect.poll(() => row(a!.id).getByTestId('line-out').textContent()).toBe(secondsToTimecode(retimed.end, CLOCK));

    // Line b dragged whole far to the left: it stops at line a's new end, keeping its length. Measured once the
    // waveform has redrawn its regions after the first edit (on a loaded machine that takes a moment).
    const rb = await settledBox(region(b!.id));
    const y = rb.y + rb.height / 2;
    const x = rb.x + rb.width / 2;
    await page.mouse.move(x, y);
    await page.mouse.down();
    for (let i = 1; i <= 8; i++) await page.mouse.move(x - (i * (b!.start - a!.start + 1) * pxPerSecond) / 8, y);
    await page.mouse.up();
    await expect.poll(async () => (await lines())[1]!.start, { timeout: 10_000 }).toBeLessThan(b!.start - 0.1);
    const moved = (await lines())[1]!;
    expect(moved.start).toBeCloseTo(retimed.end, 5);
    expect(moved.end - moved.start).toBeCloseTo(b!.end - b!.start, 5);
    await f.shot('dubflow-02-retimed');
    // Both drags are undoable, newest first.
    await pressOnBody('Control+z');
    await expect.poll(async () => (await lines())[1]!.start).toBe(b!.start);
    await page.getByTestId('undo-edit').click();
    await expect.poll(async () => (await lines())[0]!.end).toBe(a!.end);
  });

  it('splits the line under the playhead (S), merges a line with the next (M), and undoes and redoes both', async () => {
    const before = await lines();
    const long = before.find((l) => l.end - l.start > 3 && l.words.length >= 4)!;
    expect(long).toBeDefined();
    await row(long.id).getByTestId('line-time').click();
    await expect.poll(() => page.getByTestId('readout').textContent()).toBe(secondsToTimecode(long.start, CLOCK));
    await pressOnBody('Shift+ArrowRight');
    await expect.poll(() => page.getByTestId('readout').textContent()).toBe(secondsToTimecode(long.start + 1, CLOCK));
    await page.keyboard.press('s');
    await expect.poll(async () => (await lines()).length).toBe(before.length + 1);
    const split = await lines();
    const first = split.find((l) => l.id === long.id)!;
    const second = split[split.indexOf(first) + 1]!;
    expect(first.end).toBeCloseTo(long.start + 1, 3);
    expect(second.start).toBe(first.end);
    expect(second.end).toBe(long.end);
    expect(`${first.text} ${second.text}`).toBe(long.text);
    await expect.poll(rowIds).toEqual(split.map((l) => l.id));
    await f.shot('dubflow-03-split');

    // Ctrl+Z undoes the split, Ctrl+Shift+Z redoes it, the Undo button undoes it again.
    await pressOnBody('Control+z');
    await expect.poll(async () => (await lines()).map((l) => [l.id, l.start, l.end, l.text])).toEqual(before.map((l) => [l.id, l.start, l.end, l.text]));
    await page.keyboard.press('Control+Shift+z');
    await expect.poll(async () => (await lines()).length).toBe(before.length + 1);
    await page.getByTestId('undo-edit').click();
    await expect.poll(async () => (await lines()).length).toBe(before.length);
    await expect.poll(rowIds).toEqual(before.map((l) => l.id));

    // M merges the selected line with the next one; the Redo button is refused with nothing to redo.
    const [a, b] = before;
    await row(a!.id).getByTestId('line-time').click();
    await expect.poll(() => row(a!.id).getAttribute('data-selected')).toBe('true');
    await pressOnBody('m');
    await expect.poll(async () => (await lines()).length).toBe(before.length - 1);
    const merged = (await lines())[0]!;
    expect(merged).toMatchObject({ id: a!.id, start: a!.start, end: b!.end, text: `${a!.text} ${b!.text}` });
    await expect.poll(() => row(a!.id).getByTestId('line-text').inputValue()).toBe(merged.text);
    expect(await row(b!.id).count()).toBe(0);
    await page.getByTestId('undo-edit').click();
    await expect.poll(async () => (await lines()).length).toBe(before.length);
    await page.getByTestId('redo-edit').click();
    await expect.poll(async () => (await lines()).length).toBe(before.length - 1);
    await page.keyboard.press('Control+z');
    await expect.poll(async () => (await lines()).length).toBe(before.length);
    expect((await lines()).map((l) => l.text)).toEqual(before.map((l) => l.text));

    // Alt+S in a line's text splits it before the word at the caret (the API's word_index).
    const text = row(long.id).getByTestId('line-text');
    const words = long.text.split(/\s+/);
    const caret = `${words[0]} ${words[1]} `.length;
    // The view has read the lines back after the undo.
    await expect.poll(rowIds).toEqual(before.map((l) => l.id));
    await expect.poll(() => text.inputValue()).toBe(long.text);
    await text.click();
    await text.evaluate((el: HTMLTextAreaElement, at) => el.setSelectionRange(at, at), caret);
    await page.keyboard.press('Alt+s');
    await expect.poll(async () => (await lines()).length).toBe(before.length + 1);
    const byWord = await lines();
    const head = byWord.find((l) => l.id === long.id)!;
    expect(head.text).toBe(words.slice(0, 2).join(' '));
    expect(byWord[byWord.indexOf(head) + 1]!.text).toBe(words.slice(2).join(' '));
    // Between the two words' timings, as the API places a word split.
    expect(head.end).toBeCloseTo((long.words[1]!.end + long.words[2]!.start) / 2, 6);
    await page.getByTestId('undo-edit').click();
    await expect.poll(async () => (await lines()).length).toBe(before.length);
  });

  it('reviews by keys: A approves and goes to the next line left, N asks for changes and takes a note; counts and "lines left" follow the API', async () => {
    const all = await lines();
    const [a, b] = all;
    await row(a!.id).getByTestId('line-time').click();
    await pressOnBody('a');
    await expect.poll(async () => (await lines())[0]!.review_status).toBe('approved');
    await expect.poll(() => row(b!.id).getAttribute('data-selected')).toBe('true');
    expect(await row(a!.id).getAttribute('data-review')).toBe('approved');
    await page.keyboard.press('n');
    await expect.poll(async () => (await lines())[1]!.review_status).toBe('needs_changes');
    const note = page.getByTestId('note-input');
    await expect.poll(() => note.evaluate((el) => el === document.activeElement)).toBe(true);
    await note.fill('Too fast on "printing"; keep the breath.');
    await note.press('Enter');
    await expect.poll(async () => (await lines())[1]!.notes).toMatchObject([{ author: 'the desktop', text: 'Too fast on "printing"; keep the breath.' }]);
    await expect.poll(() => page.getByTestId('line-note').first().textContent()).toContain('Too fast on "printing"; keep the breath.');
    expect(await page.getByTestId('line-note').first().textContent()).toContain('the desktop');
    expect(await row(b!.id).getByTestId('line-notes-toggle').textContent()).toBe('Notes (1)');

    const counts = (await api(dubPath())).body.review;
    expect(counts).toEqual({ todo: all.length - 2, needs_changes: 1, approved: 1, left: all.length - 1 });
    const shown = page.getByTestId('review-counts');
    await expect.poll(() => shown.getAttribute('data-left')).toBe(String(counts.left));
    expect(await shown.textContent()).toBe(`1 approved 1 needs changes ${all.length - 2} to review`);
    await f.shot('dubflow-04-review');

    // "Lines left": the rows are the API's own `?left=true` answer.
    await page.getByTestId('filter-left').check();
    const left = (await lines('?left=true')).map((l) => l.id);
    expect(left).not.toContain(a!.id);
    await expect.poll(rowIds).toEqual(left);
    // Approving from the filtered list takes the line out of it.
    await row(b!.id).getByTestId('line-review').selectOption('approved');
    await expect.poll(async () => (await lines()).find((l) => l.id === b!.id)!.review_status).toBe('approved');
    const leftNow = (await lines('?left=true')).map((l) => l.id);
    expect(leftNow).not.toContain(b!.id);
    await expect.poll(rowIds).toEqual(leftNow);
    await page.getByTestId('filter-left').uncheck();
    await expect.poll(rowIds).toEqual(all.map((l) => l.id));
  });

  it('keeps typed text when the lines changed elsewhere: a clear message, a reload, and nothing lost', async () => {
    const all = await lines();
    const x = all.at(-3)!;
    const y = all.at(-2)!;
    const z = all.at(-1)!;
    // The supervisor starts rewording z, unsaved.
    const mine = 'Our own rewording of the last line.';
    await row(z.id).getByTestId('line-text').fill(mine);
    // Meanwhile, elsewhere: y is merged into x, and z is reworded.
    expect((await api(`${dubPath()}/lines/${x.id}/merge`, { method: 'POST', body: JSON.stringify({ with: y.id }) })).status).toBe(200);
    expect((await api(`${dubPath()}/lines/${z.id}`, { method: 'PATCH', body: JSON.stringify({ text: 'Their wording.' }) })).status).toBe(200);
    // Saving y, which no longer exists: refused, said so with the text quoted, and the lines reloaded.
    const typed = 'A new reading of a line merged away.';
    await row(y.id).getByTestId('line-text').fill(typed);
    await row(y.id).getByTestId('line-text').press('Enter');
    // The studio names lines by their position (the # column): y is the second last.
    await expect.poll(toastText).toContain(`Saving line ${all.length - 1} failed: Line not found.`);
    expect(await toastText()).toContain('they have been reloaded');
    expect(await toastText()).toContain(`Your text was not saved: “${typed}”`);
    await expect.poll(rowIds).toEqual((await lines()).map((l) => l.id));
    expect(await row(y.id).count()).toBe(0);
    // z's draft is kept, with the new wording offered; Enter saves the supervisor's text.
    expect(await row(z.id).getByTestId('line-text').inputValue()).toBe(mine);
    expect(await row(z.id).getByTestId('changed-elsewhere').textContent()).toContain('Changed elsewhere to “Their wording.”');
    await f.shot('dubflow-05-changed-elsewhere');
    await row(z.id).getByTestId('line-text').press('Enter');
    await expect.poll(async () => (await lines()).find((l) => l.id === z.id)!.text).toBe(mine);
    await expect.poll(() => row(z.id).getByTestId('changed-elsewhere').count()).toBe(0);
  });

  it('sets a line speed, revoices, and shows what a line that did not fit needs', async () => {
    const all = await lines();
    const slow = all[0]!;
    // The shortest line with a line after it (so that room can be made by shortening that one).
    const long = all.slice(1, -1).reduce((s, l) => (l.end - l.start < s.end - s.start ? l : s));
    // A line is voiced once its text is corrected (a speed alone leaves the original performance, by the API's rule).
    await row(slow.id).getByTestId('line-text').fill(`${slow.text.replace(/[.!?]*$/, '')}, then.`);
    await row(slow.id).getByTestId('line-text').press('Enter');
    await expect.poll(async () => (await lines()).find((l) => l.id === slow.id)!.state).toBe('corrected');
    await row(slow.id).getByTestId('line-voice').selectOption('flite/rms');
    await row(slow.id).getByTestId('line-speed').selectOption('0.8');
    await expect.poll(async () => (await lines()).find((l) => l.id === slow.id)!).toMatchObject({ speed: 0.8, state: 'corrected' });
    await row(long.id).getByTestId('line-voice').selectOption('flite/rms');
    await row(long.id).getByTestId('line-text').fill('has never been surpassed by any printer, anywhere in the world, at any time in the long history of the craft since it began.');
    await row(long.id).getByTestId('line-text').press('Enter');
    await expect.poll(async () => (await lines()).find((l) => l.id === long.id)!.state).toBe('corrected');
    await page.getByTestId('revoice').click();
    await page.locator('[data-testid=revision][data-revision="2"][data-current=true]').waitFor({ timeout: 180_000 });
    await expect.poll(() => row(long.id).getAttribute('data-state')).toBe('voiced');
    const voiced = await lines();
    // Whatever each rendering needs, the view says: the speed it fits at, or that the text must be shorter.
    for (const l of [slow, long].map((x) => voiced.find((v) => v.id === x.id)!)) {
      const r = l.render!;
      if (!r.flags.includes('does_not_fit')) {
        expect(await row(l.id).getByTestId('fit-faster').count()).toBe(0);
        expect(await row(l.id).getByTestId('fit-too-long').count()).toBe(0);
        continue;
      }
      const needed = Math.ceil((r.synthesized_duration / (r.slot.end - r.slot.start)) * 100 - 1e-9) / 100;
      console.log(`line ${l.id}: ${r.synthesized_duration.toFixed(2)} s read into a ${(r.slot.end - r.slot.start).toFixed(2)} s slot: needs ${needed}×`);
      if (needed > 1.2) {
        expect(await row(l.id).getByTestId('fit-too-long').getAttribute('data-needed')).toBe(String(needed));
      } else {
        await row(l.id).getByTestId('fit-faster').click();
        await expect.poll(async () => (await lines()).find((v) => v.id === l.id)!).toMatchObject({ speed: Math.max(0.8, needed), state: 'corrected' });
      }
    }
    // The long line cannot fit at any allowed speed.
    const unfit = voiced.find((l) => l.id === long.id)!;
    expect(unfit.render!.flags).toContain('does_not_fit');
    await page.locator('[data-testid=waveform][data-ready=true]').waitFor({ timeout: 60_000 });
    await row(long.id).scrollIntoViewIfNeeded();
    await f.shot('dubflow-06-speed-and-fit');

    // "Make room": the line ends where its reading ended; the next line, if it started before that, starts there.
    const r = unfit.render!;
    const end = Math.round((r.slot.end + r.overflow) * 1e6) / 1e6;
    const next = voiced[voiced.indexOf(unfit) + 1];
    const duration = (await api(dubPath())).body.format.duration as number;
    const possible = next ? end <= next.end - 0.05 : end <= duration;
    console.log(`line ${unfit.id}: the reading ended at ${end.toFixed(3)} s, the line at ${unfit.end.toFixed(3)} s; next line ${next ? `${next.start.toFixed(3)}–${next.end.toFixed(3)} s` : 'none'}`);
    expect(next).toBeDefined();
    expect(await row(long.id).getByTestId('make-room').count()).toBe(possible ? 1 : 0);
    if (possible) {
      await row(long.id).getByTestId('make-room').click();
      await expect.poll(async () => (await lines()).find((l) => l.id === long.id)!).toMatchObject({ end, state: 'corrected' });
      const after = await lines();
      if (next) expect(after.find((l) => l.id === next.id)!.start).toBe(Math.max(next.start, end));
      // Two undoable edits: undo both and the timing is back.
      await page.getByTestId('undo-edit').click();
      await expect.poll(async () => (await lines()).find((l) => l.id === long.id)!.end).toBe(unfit.end);
      if (next && next.start < end) {
        await page.getByTestId('undo-edit').click();
        await expect.poll(async () => (await lines()).find((l) => l.id === next.id)!.start).toBe(next.start);
      }
    }
  });

  // ---- dub takes and line revisions ----
  it('refuses a line edit made on a stale revision (409), says so and reloads; renders takes of a line, auditions them A/B and puts one in', async () => {
    const all = await lines();
    const w = all[1]!;
    // Another client asks for changes on line w after this view read it.
    expect((await api(`${dubPath()}/lines/${w.id}`, { method: 'PATCH', body: JSON.stringify({ review_status: 'needs_changes' }) })).status).toBe(200);
    await row(w.id).getByTestId('line-review').selectOption('approved');
    // Named by its position (the # column) by the studio, by its id in the API's answer.
    await expect.poll(toastText).toContain(`Review of line 2 failed: Line ${w.id} has changed since revision ${w.revision}`);
    expect(await toastText()).toContain('they have been reloaded');
    expect((await lines()).find((l) => l.id === w.id)!.review_status).toBe('needs_changes');
    await expect.poll(() => row(w.id).getByTestId('line-review').inputValue()).toBe('needs_changes');
    // Read again, the same edit goes through.
    await row(w.id).getByTestId('line-review').selectOption('approved');
    await expect.poll(async () => (await lines()).find((l) => l.id === w.id)!.review_status).toBe('approved');

    // Takes: two renderings of line w at its voice (its own speed, then 0.9×).
    const revisionsBefore = (await api(`${dubPath()}/revisions`)).body.data as Array<{ number: number; current: boolean }>;
    const current = revisionsBefore.find((r) => r.current)!.number;
    await row(w.id).getByTestId('line-time').click();
    const panel = page.locator(`[data-testid=dub-takes][data-line="${w.id}"]`);
    await panel.waitFor();
    await panel.getByTestId('takes-count').selectOption('2');
    await panel.getByTestId('render-takes').click();
    await expect.poll(() => panel.locator('[data-testid=take][data-status=ready]').count(), { timeout: 180_000 }).toBe(2);
    const takes = (await api(`${dubPath()}/lines/${w.id}/takes`)).body.data as Array<{ id: string; number: number; speed: number | null; voice: string; render: { region: { start: number; end: number } } }>;
    expect(takes.map((t) => [t.number, t.voice, t.speed])).toEqual([
      [1, w.effective_voice, null],
      [2, w.effective_voice, 0.9],
    ]);
    // A/B: the current revision over the take's region, then the take.
    const audio = page.locator('audio[data-testid=ab-audio]');
    const take1 = panel.locator('[data-testid=take][data-take="1"]');
    await take1.getByTestId('take-original').click();
    await expect.poll(() => audio.evaluate((a: HTMLAudioElement) => a.src)).toMatch(new RegExp(`/revisions/${current}/file\\?`));
    await expect.poll(() => audio.evaluate((a: HTMLAudioElement) => !a.paused && a.currentTime >= 0), { timeout: 10_000 }).toBe(true);
    expect(await audio.evaluate((a: HTMLAudioElement) => a.currentTime)).toBeGreaterThanOrEqual(takes[0]!.render.region.start - 0.05);
    await take1.getByTestId('take-play').click();
    await expect.poll(() => audio.evaluate((a: HTMLAudioElement) => a.src)).toMatch(new RegExp(`/takes/${takes[0]!.id}/file\\?`));
    await expect.poll(() => audio.evaluate((a: HTMLAudioElement) => !a.paused && a.currentTime > 0), { timeout: 10_000 }).toBe(true);
    await f.shot('dubflow-07-takes');
    // Take 2 goes in: a new current revision carries it for line w.
    await panel.locator('[data-testid=take][data-take="2"]').getByTestId('take-choose').click();
    await page.locator(`[data-testid=revision][data-revision="${revisionsBefore.length + 1}"][data-current=true]`).waitFor({ timeout: 60_000 });
    const made = (await api(`${dubPath()}/revisions/${revisionsBefore.length + 1}`)).body;
    expect(made).toMatchObject({ source: 'take', take_id: takes[1]!.id, lines_revoiced: [w.id], base: current });
    expect((await lines()).find((l) => l.id === w.id)).toMatchObject({ state: 'voiced', speed: 0.9, review_status: 'todo', render: { take_id: takes[1]!.id } });
    expect(await page.locator(`[data-testid=revision][data-revision="${made.number}"]`).textContent()).toContain('take in for line 2');
    // The view shows the new revision: its waveform is drawn again before the next step uses the keys.
    await page.locator('[data-testid=waveform][data-ready=true]').waitFor({ timeout: 60_000 });
  });
  // ---- end of the dub takes block ----

  it('exports the ADR cue sheet from the top bar, as the API serves it, on the timebase', async () => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('dub-export').selectOption('cues_csv')]);
    expect(download.suggestedFilename()).toMatch(/\.cues\.csv$/);
    const target = path.join(f.work, download.suggestedFilename());
    await download.saveAs(target);
    const csv = fs.readFileSync(target, 'utf8');
    const served = await (await fetch(`${f.service.url}${dubPath()}/export?format=cues_csv`, { headers: { Authorization: `Bearer ${f.key}` } })).text();
    expect(csv).toBe(served);
    const first = (await lines())[0]!;
    expect(csv.split('\r\n')[1]!.split(',').slice(4, 6)).toEqual([secondsToTimecode(first.start, CLOCK), secondsToTimecode(first.end, CLOCK)]);
    expect(await page.getByTestId('dub-export').inputValue()).toBe('');
  });

  it('lists the dub keys on its shortcut sheet', async () => {
    await pressOnBody('?');
    const sheet = page.getByTestId('shortcut-sheet');
    await sheet.waitFor();
    const text = await sheet.textContent();
    for (const k of ['J', 'K', 'L', 'I / O', 'A', 'N', 'S', 'M', 'Ctrl+Z / Ctrl+Shift+Z', '↓ / ↑']) expect(text).toContain(k);
    // And where the controls with no key are: recording, takes, cue sheets, stems, following the actor.
    const places = await page.getByTestId('shortcut-sheet-places').textContent();
    for (const p of ['Record', 'Use this take', 'Cue sheet', 'Stems', "Follow the actor's timing and pitch"]) expect(places).toContain(p);
    await page.keyboard.press('Escape');
    await sheet.waitFor({ state: 'detached' });
  });

  it('raised no page errors', () => {
    expect(f.consoleErrors).toEqual([]);
  });
});
