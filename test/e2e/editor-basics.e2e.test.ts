/**
 * An editor's basics in the studio, end to end: real service (`npm run serve`), a real two-reader
 * recording transcribed by the default recognizer, Debian's Chromium. Playback while the recording is still
 * being transcribed; in and out points (I/O), played once (P) and in a loop (Shift+P), cleared (Shift+X) and
 * exported as a range; a speaker renamed once for the transcript, the legend, the speakers panel and the
 * exports; jumps to the next/previous marker (] / [) and along one kind (Shift+] / Shift+[); and, with the
 * same recording uploaded again, a voice match shown with its certainty and rejected ("not this person").
 * Each step is checked through the API. Screenshots go to test-artifacts/screenshots/.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM } from './browser';
import { openStudio, signInWithProject, uploadAndOpen, type StudioFixture } from './studio-fixture';
import { sharedDir } from './service-process';
import { twoReadersFile } from '../helpers/two-readers';
import { decodeWav } from '../../src/service/media/wav';

/** The studio redraws within a frame or two, but this machine is shared: polls wait up to 15 s. */
const SLOW = { timeout: 15_000 };

const canRun = fs.existsSync(CHROMIUM) && fs.existsSync(path.join(sharedDir(), 'audio/asr'));

interface MapEntry {
  speaker_id: string;
  name: string;
  similarity: number;
  matched: boolean;
  match_threshold: number;
}

/** The transport readout (clock time, no timebase set: HH:MM:SS.mmm) in seconds. */
function seconds(text: string | null): number {
  const m = /(\d+):(\d+):(\d+(?:\.\d+)?)/.exec(text ?? '');
  if (!m) throw new Error(`unreadable time ${text}`);
  return Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]);
}

/** SRT cues: start and end in seconds, and the text. */
function srtCues(body: string): { start: number; end: number; text: string }[] {
  return body
    .trim()
    .split(/\n\n+/)
    .map((block) => {
      const [, times, ...text] = block.split('\n');
      const [a, b] = times!.split(' --> ').map((t) => seconds(t.replace(',', '.')));
      return { start: a!, end: b!, text: text.join(' ') };
    });
}

describe.skipIf(!canRun)("an editor's basics in the studio", { timeout: 1_800_000 }, () => {
  let f: StudioFixture;
  let page: Page;
  let recording = '';
  let sessionId = '';
  const api = async (p: string, init: RequestInit = {}) => {
    const res = await fetch(`${f.service.url}${p}`, { ...init, headers: { Authorization: `Bearer ${f.key}`, ...(init.headers as Record<string, string>) } });
    const text = await res.text();
    return { status: res.status, text, body: text.startsWith('{') ? JSON.parse(text) : null };
  };
  const speakerMap = async (id: string) => (await api(`/v1/speech/transcriptions/${id}`)).body.speaker_map as Record<string, MapEntry>;
  const readout = async () => seconds(await page.getByTestId('readout').textContent());
  const shuttle = () => page.getByTestId('shuttle').textContent();
  /** The playhead sampled every 100 ms for `ms`. */
  const sample = async (ms: number) => {
    const out: number[] = [];
    for (const end = Date.now() + ms; Date.now() < end; ) {
      out.push(await readout());
      await page.waitForTimeout(100);
    }
    return out;
  };
  const focusPage = () => page.locator('body').click({ position: { x: 2, y: 2 } });
  const download = async (format: string) => {
    await page.getByRole('button', { name: /Export/ }).click();
    const [file] = await Promise.all([page.waitForEvent('download'), page.locator(`[data-format=${format}]`).click()]);
    const target = path.join(f.work, `${Date.now()}-${file.suggestedFilename()}`);
    await file.saveAs(target);
    return fs.readFileSync(target);
  };

  beforeAll(async () => {
    f = await openStudio('editor');
    page = f.page;
    await signInWithProject(f, { name: 'Editor basics', key: 'e2e-editor' });
    recording = twoReadersFile(f.work);
  }, 300_000);

  afterAll(async () => {
    await f?.close();
  });

  it('plays the recording while it is still being transcribed', async () => {
    sessionId = await uploadAndOpen(f, recording);
    await page.locator('[data-testid=waveform][data-ready=true]').waitFor({ timeout: 120_000 });
    await page.getByTestId('transcribing').waitFor();
    await page.getByTestId('play').click();
    await expect.poll(shuttle, SLOW).toBe('▶ 1×');
    await expect.poll(readout, { timeout: 10_000 }).toBeGreaterThan(0.5);
    // Still transcribing while it plays: the service says so and no word is on screen yet.
    const status = (await api(`/v1/speech/transcriptions/${sessionId}`)).body.status as string;
    console.info(`playing at ${(await readout()).toFixed(2)} s while the recording is ${status}`);
    expect(['queued', 'running']).toContain(status);
    expect(await page.getByTestId('word').count()).toBe(0);
    await f.shot('50-editor-playing-while-transcribing');
    await page.keyboard.press('k');
    await expect.poll(shuttle, SLOW).toBe('■');
  });

  it('shows the transcript when it arrives, without a reload', async () => {
    await page.getByTestId('word').first().waitFor({ timeout: 900_000 });
    expect(await page.getByTestId('transcribing').count()).toBe(0);
    // As the word-corrections suite does: the view is interactive once the waveform is drawn and laid out.
    await page.locator('[data-testid=waveform][data-ready=true]').waitFor({ timeout: 60_000 });
    await page.locator('html[data-interactive=true]').waitFor({ timeout: 60_000 });
    expect((await api(`/v1/speech/transcriptions/${sessionId}`)).body.status).toBe('complete');
  });

  it('sets in and out points, plays in→out once, then in a loop until stopped', async () => {
    await focusPage();
    await page.keyboard.press('Home');
    await page.keyboard.press('Shift+ArrowRight');
    await page.keyboard.press('Shift+ArrowRight');
    await page.keyboard.press('i');
    await page.keyboard.press('Shift+ArrowRight');
    await page.keyboard.press('Shift+ArrowRight');
    await page.keyboard.press('o');
    // The panel shows the points once React has drawn them (a busy machine can take a frame or two).
    const point = (id: string) => async () => {
      const text = await page.getByTestId(id).textContent();
      return text === '—' ? null : seconds(text);
    };
    await expect.poll(point('in-point'), SLOW).toBeCloseTo(2, 1);
    await expect.poll(point('out-point'), SLOW).toBeCloseTo(4, 1);
    const inPoint = (await point('in-point')())!;
    const outPoint = (await point('out-point')())!;
    await page.keyboard.press('End');
    await page.keyboard.press('Shift+I');
    await expect.poll(readout, SLOW).toBeCloseTo(inPoint, 2);
    await page.keyboard.press('Shift+O');
    await expect.poll(readout, SLOW).toBeCloseTo(outPoint, 2);

    // P: from the in point, stopping on the out point.
    await page.keyboard.press('p');
    await expect.poll(shuttle, SLOW).toBe('▶ 1×');
    // The readout still says the out point (Shift+O) until playback's first frame is drawn, which a busy machine
    // can delay past the first sample: the range's playing starts when the readout leaves the out point.
    let first = await readout();
    for (const end = Date.now() + SLOW.timeout; first >= outPoint - 0.3 && Date.now() < end; ) {
      await page.waitForTimeout(25);
      first = await readout();
    }
    const once = [first, ...(await sample(2600))];
    console.info(`in→out ${inPoint}–${outPoint} s played once: ${once.map((t) => t.toFixed(2)).join(' ')}`);
    expect(await shuttle()).toBe('■');
    for (const t of once) {
      expect(t).toBeGreaterThanOrEqual(inPoint - 0.05);
      expect(t).toBeLessThanOrEqual(outPoint + 0.05);
    }
    expect(once[0]!).toBeLessThan(inPoint + 0.6);
    expect(await readout()).toBeCloseTo(outPoint, 1);

    // Shift+P: the range in a loop, for longer than the range, until K.
    await page.keyboard.press('Shift+P');
    await expect.poll(() => page.getByTestId('loop-range').getAttribute('aria-pressed'), SLOW).toBe('true');
    const loop = await sample(3500);
    console.info(`in→out looped: ${loop.map((t) => t.toFixed(2)).join(' ')}`);
    for (const t of loop) {
      expect(t).toBeGreaterThanOrEqual(inPoint - 0.05);
      expect(t).toBeLessThanOrEqual(outPoint + 0.3);
    }
    expect(loop.some((t, i) => i > 0 && t < loop[i - 1]! - 1)).toBe(true);
    expect(await shuttle()).toBe('▶ 1×');
    await f.shot('51-editor-in-out-loop');
    await page.keyboard.press('k');
    await expect.poll(shuttle, SLOW).toBe('■');
    expect(await page.getByTestId('loop-range').getAttribute('aria-pressed')).toBe('false');
  });

  it('exports only the in→out part, then clears the points', async () => {
    const inPoint = seconds(await page.getByTestId('in-point').textContent());
    const outPoint = seconds(await page.getByTestId('out-point').textContent());
    await page.getByRole('button', { name: /Export/ }).click();
    const only = page.getByTestId('export-range');
    await only.waitFor();
    // Unticked until chosen: points set for playback do not cut the next export short.
    expect(await only.locator('input').isChecked()).toBe(false);
    await only.locator('input').check();
    expect(await only.locator('input').isChecked()).toBe(true);
    await f.shot('52-editor-export-range');
    await page.keyboard.press('Escape');
    const part = srtCues((await download('srt')).toString('utf8'));
    const whole = srtCues((await api(`/v1/speech/transcriptions/${sessionId}/export?format=srt`)).text);
    console.info(`SRT of ${inPoint}–${outPoint} s: ${part.length} of ${whole.length} cues`);
    expect(part.length).toBeGreaterThan(0);
    expect(part.length).toBeLessThan(whole.length);
    for (const c of part) {
      expect(c.start).toBeGreaterThanOrEqual(inPoint - 0.002);
      expect(c.end).toBeLessThanOrEqual(outPoint + 0.002);
    }
    // What the service makes of the same range (the studio sends the points to the millisecond).
    const asked = srtCues((await api(`/v1/speech/transcriptions/${sessionId}/export?format=srt&start=${inPoint}&end=${outPoint}`)).text);
    expect(part.map((c) => c.text)).toEqual(asked.map((c) => c.text));
    // The audio of the part: the recording's rate and channels, as long as the part.
    const audio = decodeWav(await download('wav'));
    console.info(`WAV of ${inPoint}–${outPoint} s: ${audio.frames} frames at ${audio.sampleRate} Hz`);
    expect([audio.sampleRate, audio.channels]).toEqual([16000, 1]);
    expect(Math.abs(audio.frames - (outPoint - inPoint) * 16000)).toBeLessThanOrEqual(1);

    await focusPage();
    await page.keyboard.press('Shift+X');
    await expect.poll(() => page.getByTestId('in-point').textContent(), SLOW).toBe('—');
    await expect.poll(() => page.getByTestId('out-point').textContent(), SLOW).toBe('—');
    await page.getByRole('button', { name: /Export/ }).click();
    await page.locator('[data-format=srt]').waitFor();
    expect(await page.getByTestId('export-range').count()).toBe(0);
    await page.keyboard.press('Escape');
  });

  it('renames a speaker once: the transcript, the legend, the speakers panel and every export say it', async () => {
    const item = page.getByTestId('speaker-item').first();
    const label = (await item.getAttribute('data-label'))!;
    const before = (await speakerMap(sessionId))[label]!;
    // Before: the studio already shows the project speaker's name, as the exports do (not the label).
    expect(await item.getByTestId('speaker-name').textContent()).toBe(before.name);
    expect(await page.locator(`[data-testid=segment][data-speaker="${label}"] [data-testid=line-speaker]`).first().textContent()).toBe(before.name);
    expect((await api(`/v1/speech/transcriptions/${sessionId}/export?format=vtt`)).text).toContain(`<v ${before.name}>`);

    await item.getByTestId('speaker-name').click();
    const input = page.getByTestId('speaker-name-input');
    await input.fill('Ada Lovelace');
    await input.press('Enter');
    await expect.poll(() => item.getByTestId('speaker-name').textContent(), SLOW).toBe('Ada Lovelace');
    const rows = page.locator(`[data-testid=segment][data-speaker="${label}"] [data-testid=line-speaker]`);
    await expect.poll(async () => [...new Set(await rows.allTextContents())], SLOW).toEqual(['Ada Lovelace']);
    expect(await page.locator('.speakers-legend').textContent()).toContain('Ada Lovelace');
    expect((await speakerMap(sessionId))[label]).toMatchObject({ speaker_id: before.speaker_id, name: 'Ada Lovelace' });
    const project = (await api('/v1/speech/projects/e2e-editor')).body as { speakers: { id: string; name: string }[] };
    expect(project.speakers.find((s) => s.id === before.speaker_id)?.name).toBe('Ada Lovelace');
    const vtt = (await api(`/v1/speech/transcriptions/${sessionId}/export?format=vtt`)).text;
    expect(vtt).toContain('<v Ada Lovelace>');
    expect(vtt).not.toContain(`<v ${before.name}>`);
    expect((await download('csv')).toString('utf8')).toContain('Ada Lovelace');
    await f.shot('53-editor-speaker-renamed');
  });

  it("adds markers of the editor's own at the playhead: named, listed, exported, removed", async () => {
    const own = page.getByTestId('editor-marker');
    const listed = async () =>
      ((await api(`/v1/speech/transcriptions/${sessionId}/markers`)).body.data as { id: string; time: number; name: string }[]).map((m) => [
        Math.round(m.time * 10) / 10,
        m.name,
      ]);
    await focusPage();
    await page.keyboard.press('Home');
    for (let i = 0; i < 3; i++) await page.keyboard.press('Shift+ArrowRight');
    await expect.poll(readout, SLOW).toBeCloseTo(3, 1);
    await page.keyboard.press('m');
    const input = page.getByTestId('marker-name-input');
    await input.fill('Retake: cough');
    await input.press('Enter');
    await expect.poll(() => own.first().getByTestId('marker-name').textContent(), SLOW).toBe('Retake: cough');
    await focusPage();
    for (let i = 0; i < 3; i++) await page.keyboard.press('Shift+ArrowRight');
    await expect.poll(readout, SLOW).toBeCloseTo(6, 1);
    await page.getByTestId('add-marker').click();
    await input.fill('Pickup');
    await input.press('Enter');
    await expect.poll(() => own.count(), SLOW).toBe(2);
    await expect.poll(listed, SLOW).toEqual([
      [3, 'Retake: cough'],
      [6, 'Pickup'],
    ]);
    const edl = (await download('edl')).toString('utf8');
    expect(edl).toMatch(/^\* LOC: 00:00:03:00 \S+ +marker: Retake: cough$/m);
    expect(edl).toMatch(/^\* LOC: 00:00:06:00 \S+ +marker: Pickup$/m);
    await f.shot('57-editor-own-markers');
    // On the timeline too: their own lane, named, and in the legend with a count.
    const drawnOwn = page.locator('[data-testid=marker][data-kind="own.marker"]');
    const drawnTimes = () => drawnOwn.evaluateAll((els) => els.map((e) => Math.round(Number((e as HTMLElement).dataset.start) * 10) / 10));
    await expect.poll(drawnTimes, SLOW).toEqual([3, 6]);
    expect(await drawnOwn.first().getAttribute('data-lane')).toBe('own');
    expect(await drawnOwn.first().getAttribute('aria-label')).toContain('Retake: cough');
    expect(await page.locator('[data-testid=marker-filter][data-kind="own.marker"] .count').textContent()).toBe('2');
    // Shift+] / Shift+[ along own markers: clicking the first on the timeline picks the kind.
    const reached = page.getByTestId('marker-reached');
    const reachedAt = async () => Number(await reached.getAttribute('data-time'));
    await page.keyboard.press('Home');
    await expect.poll(readout, SLOW).toBe(0);
    await drawnOwn.first().click();
    await expect.poll(readout, SLOW).toBeCloseTo(3, 1);
    await expect.poll(reachedAt, SLOW).toBeCloseTo(3, 1);
    await focusPage();
    await page.keyboard.press('}');
    await expect.poll(reachedAt, SLOW).toBeCloseTo(6, 1);
    expect(await reached.getAttribute('data-kind')).toBe('own.marker');
    await expect.poll(readout, SLOW).toBeCloseTo(6, 1);
    await f.shot('58-editor-own-markers-on-timeline');
    await page.keyboard.press('{');
    await expect.poll(reachedAt, SLOW).toBeCloseTo(3, 1);
    await expect.poll(readout, SLOW).toBeCloseTo(3, 1);
    // Its time goes there; × removes it.
    await own.first().locator('button.num').click();
    await expect.poll(readout, SLOW).toBeCloseTo(3, 1);
    await own.first().getByTestId('remove-marker').click();
    await expect.poll(() => own.count(), SLOW).toBe(1);
    expect(await listed()).toEqual([[6, 'Pickup']]);
    await expect.poll(drawnTimes, SLOW).toEqual([6]);
  });

  it('jumps to the next and previous marker, and along one kind, with ] [ and Shift', async () => {
    await page.locator('[data-testid=analysis-status][data-status=complete]').waitFor({ timeout: 1_200_000 });
    // The speakers tab names the speaker as the transcript does.
    await page.getByTestId('tab-speakers').click();
    await expect.poll(() => page.getByTestId('insights-speakers').textContent(), SLOW).toContain('Ada Lovelace');
    await page.getByTestId('tab-transcript').click();

    const drawn = await page
      .locator('[data-testid=marker]')
      .evaluateAll((els) => els.map((e) => ({ t: Number((e as HTMLElement).dataset.at ?? (e as HTMLElement).dataset.start), kind: (e as HTMLElement).dataset.kind! })));
    const times = [...new Set(drawn.map((m) => m.t))].sort((a, b) => a - b);
    console.info(`${drawn.length} markers at ${times.length} times: ${JSON.stringify(drawn)}`);
    expect(times.length).toBeGreaterThanOrEqual(2);
    const reached = page.getByTestId('marker-reached');
    const at = async () => Number(await reached.getAttribute('data-time'));

    await focusPage();
    await page.keyboard.press('Home');
    await expect.poll(readout, SLOW).toBe(0);
    await page.keyboard.press(']');
    const first = times.find((t) => t > 0.05)!;
    await expect.poll(at, SLOW).toBeCloseTo(first, 6);
    expect(await readout()).toBeCloseTo(first, 2);
    await page.keyboard.press(']');
    const second = times.find((t) => t > first + 0.05);
    if (second !== undefined) {
      await expect.poll(at, SLOW).toBeCloseTo(second, 6);
      await page.keyboard.press('[');
      await expect.poll(at, SLOW).toBeCloseTo(first, 6);
    }
    // Shift+]: the next marker of the kind reached, skipping the others.
    const kind = (await reached.getAttribute('data-kind'))!;
    const sameKind = [...new Set(drawn.filter((m) => m.kind === kind).map((m) => m.t))].sort((a, b) => a - b);
    const now = await at();
    const nextOfKind = sameKind.find((t) => t > now + 0.05);
    await page.keyboard.press('}');
    if (nextOfKind !== undefined) {
      await expect.poll(at, SLOW).toBeCloseTo(nextOfKind, 6);
      expect(await reached.getAttribute('data-kind')).toBe(kind);
    } else {
      await page.getByText(/No .* after the playhead/).first().waitFor();
    }
    await f.shot('54-editor-marker-jump');
    // ] walks the editor's own marker (6 s, left by the step before) in time order with the analysis' markers.
    const ownAt = drawn.find((m) => m.kind === 'own.marker')!.t;
    await page.keyboard.press('Home');
    await expect.poll(readout, SLOW).toBe(0);
    for (const t of times.filter((x) => x > 0.05 && x <= ownAt)) {
      await page.keyboard.press(']');
      await expect.poll(at, SLOW).toBeCloseTo(t, 6);
    }
    expect(await reached.getAttribute('data-kind')).toBe('own.marker');
    // From the end there is nothing after: said, and the playhead stays.
    await page.keyboard.press('End');
    await expect.poll(readout, SLOW).toBeGreaterThan(30);
    const end = await readout();
    await page.keyboard.press(']');
    await page.getByText('No marker after the playhead').first().waitFor();
    expect(await readout()).toBeCloseTo(end, 2);
  });

  it('shows a voice match with its certainty and rejects it: "not this person"', async () => {
    // The same recording uploaded again into the project: its voices match the first one's speakers.
    const form = new FormData();
    form.append('project_key', 'e2e-editor');
    form.append('file', new Blob([fs.readFileSync(recording)]), 'two-readers-again.flac');
    const second = (await api('/v1/speech/transcriptions', { method: 'POST', body: form })).body.id as string;
    let status = '';
    for (const end = Date.now() + 900_000; Date.now() < end && status !== 'complete' && status !== 'failed'; ) {
      await new Promise((r) => setTimeout(r, 1000));
      status = (await api(`/v1/speech/transcriptions/${second}`)).body.status;
    }
    expect(status).toBe('complete');
    const map = await speakerMap(second);
    const [label, entry] = Object.entries(map).find(([, e]) => e.matched)!;
    console.info(`second upload's speaker map: ${JSON.stringify(map)}`);

    await page.goto(`${f.service.url}/#/recordings/${second}`);
    // The transcript is laid out once the waveform is (its peaks are computed on first open).
    await page.locator('[data-testid=waveform][data-ready=true]').waitFor({ timeout: 180_000 });
    const item = page.locator(`[data-testid=speaker-item][data-label="${label}"]`);
    await item.waitFor({ timeout: 60_000 });
    // The known speaker's name (the one renamed above, when it is that voice) and the match's certainty.
    expect(await item.getByTestId('speaker-name').textContent()).toBe(entry.name);
    const match = item.getByTestId('speaker-match');
    expect(await match.textContent()).toContain(`match ${(entry.similarity * 100).toFixed(1)}%`);
    // Its colour is judged against the service's own threshold, served with the map: the upper half of the
    // room above it is a close match, the lower half a fair one.
    expect(entry.match_threshold).toBeGreaterThan(0.5);
    expect(Number(await match.getAttribute('data-threshold'))).toBe(entry.match_threshold);
    const close = entry.similarity >= entry.match_threshold + (1 - entry.match_threshold) / 2;
    expect(await match.getAttribute('data-level')).toBe(close ? 'strong' : 'fair');
    expect(await match.locator(`.match-${close ? 'strong' : 'fair'}`).count()).toBe(1);
    expect(await match.getAttribute('title')).toContain(`from ${entry.match_threshold.toFixed(4)}`);
    await f.shot('55-editor-speaker-match');

    await match.getByTestId('reject-match').click();
    await expect.poll(() => item.getByTestId('speaker-match').count(), SLOW).toBe(0);
    const after = (await speakerMap(second))[label]!;
    expect(after.speaker_id).not.toBe(entry.speaker_id);
    expect(after.matched).toBe(false);
    await expect.poll(() => item.getByTestId('speaker-name').textContent(), SLOW).toBe(after.name);
    await expect
      .poll(async () => [...new Set(await page.locator(`[data-testid=segment][data-speaker="${label}"] [data-testid=line-speaker]`).allTextContents())])
      .toEqual([after.name]);
    // The first recording keeps its speaker.
    expect(Object.values(await speakerMap(sessionId)).map((e) => e.speaker_id)).toContain(entry.speaker_id);
    await f.shot('56-editor-match-rejected');
    expect(f.consoleErrors).toEqual([]);
  });
});
