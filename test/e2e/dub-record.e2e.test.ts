/**
 * Recording a dub line in the studio: Chromium with a fake capture device fed a known file (a tone), the dub
 * view's Record button (count-in with the original line as a guide, MediaRecorder, upload with count_in), the
 * take stored with `source: "recorded"`, chosen from the takes panel: the new revision changes only the take's
 * region. Sample-exact processing is checked by test/service/dub-recorded-take.test.ts (MediaRecorder encodes
 * lossily, so here the take is checked by its loudness match and its region).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM } from './browser';
import { sharedDir } from './service-process';
import { openStudio, type StudioFixture } from './studio-fixture';
import { compareOutside, dubMaster, wavBytes } from '../helpers/dubs';

const canRun = fs.existsSync(CHROMIUM) && fs.existsSync(path.join(sharedDir(), 'audio/asr'));
const LINES = [
  { speaker: 'S1', start: 0.5, end: 3, text: 'Printing, in the only sense.' },
  { speaker: 'S1', start: 4, end: 6.5, text: 'With which we are at present concerned.' },
  { speaker: 'S2', start: 8, end: 11, text: 'Differs from most.' },
];

describe.skipIf(!canRun)('recording a dub line in the studio', { timeout: 600_000 }, () => {
  let f: StudioFixture;
  let page: Page;
  let sessionId = '';
  let dubId = '';
  const fakeDir = fs.mkdtempSync(path.join(os.tmpdir(), 'takeline-fake-mic-'));
  const fakeMic = path.join(fakeDir, 'tone.wav');
  const api = async (p: string, init: RequestInit = {}) => {
    const res = await fetch(`${f.service.url}${p}`, {
      ...init,
      headers: { Authorization: `Bearer ${f.key}`, ...(typeof init.body === 'string' ? { 'Content-Type': 'application/json' } : {}), ...(init.headers as Record<string, string>) },
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  const dubPath = () => `/v1/speech/transcriptions/${sessionId}/dubs/${dubId}`;

  beforeAll(async () => {
    // The fake microphone: a steady 300 Hz tone (Chromium loops the file).
    execFileSync('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'sine=frequency=300:sample_rate=48000:duration=10', '-af', 'volume=0.3', '-c:a', 'pcm_s16le', fakeMic]);
    f = await openStudio('dubrecord', {}, ['--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream', `--use-file-for-fake-audio-capture=${fakeMic}`]);
    page = f.page;
    const form = new FormData();
    form.append('project_key', 'e2e-dubrecord');
    form.append('file', await fs.openAsBlob(path.join(sharedDir(), 'audio/asr/amateur_LJ001-0001.flac')), 'take.flac');
    sessionId = (await api('/v1/speech/transcriptions', { method: 'POST', body: form })).body.id;
    const dubForm = new FormData();
    dubForm.append('file', await fs.openAsBlob(dubMaster(f.work, 12, { rate: 48000, channels: 2 })), 'master.wav');
    dubForm.append('lines', JSON.stringify(LINES));
    const made = await api(`/v1/speech/transcriptions/${sessionId}/dubs`, { method: 'POST', body: dubForm });
    expect(made.status).toBe(201);
    dubId = made.body.id;
    await page.goto(f.service.signInUrl);
    await page.waitForURL(`${f.service.url}/`);
  }, 420_000);

  afterAll(async () => {
    await f?.close();
    fs.rmSync(fakeDir, { recursive: true, force: true });
  });

  it('records line 2 with a count-in and the guide, stores it as a recorded take, and puts it in', async () => {
    await page.goto(`${f.service.url}/#/recordings/${sessionId}/dubs/${dubId}`);
    await page.locator('[data-testid=waveform][data-ready=true]').waitFor({ timeout: 60_000 });
    const lineId = (await api(`${dubPath()}/lines`)).body.data[1].id as number;
    await page.locator(`[data-testid=dub-line][data-line="${lineId}"]`).getByTestId('line-time').click();
    const panel = page.locator(`[data-testid=dub-takes][data-line="${lineId}"]`);
    await panel.waitFor();
    await panel.getByTestId('record-preroll').selectOption('1');
    expect(await panel.getByTestId('record-guide').isChecked()).toBe(true);
    await panel.getByTestId('record-take').click();
    const take = panel.locator('[data-testid=take][data-source=recorded]');
    await take.waitFor({ timeout: 60_000 });
    const takes = (await api(`${dubPath()}/lines/${lineId}/takes`)).body.data;
    expect(takes).toHaveLength(1);
    const recorded = takes[0];
    expect(recorded).toMatchObject({ source: 'recorded', status: 'ready', stale: false });
    // The tone was captured and brought to the original line's loudness.
    expect(recorded.render.loudness.result_lufs).not.toBeNull();
    expect(Math.abs(recorded.render.loudness.result_lufs - recorded.render.loudness.reference_lufs)).toBeLessThan(1);
    await f.shot('dubrecord-01-recorded-take');

    const revisions = (await api(`${dubPath()}/revisions`)).body.data as Array<{ number: number; current: boolean }>;
    const before = revisions.find((r) => r.current)!.number;
    const beforeAudio = (await api(`${dubPath()}/revisions/${before}`)).body.audio.url as string;
    await take.getByTestId('take-choose').click();
    await expect.poll(async () => (await api(`${dubPath()}/lines/${lineId}/takes`)).body.data[0].chosen, { timeout: 30_000 }).toBe(true);
    const dub = (await api(dubPath())).body;
    expect(dub.current_revision).toBe(before + 1);
    const afterAudio = (await api(`${dubPath()}/revisions/${dub.current_revision}`)).body.audio.url as string;
    const bytes = async (url: string) => Buffer.from(await (await fetch(url)).arrayBuffer());
    const diff = compareOutside(wavBytes(await bytes(beforeAudio)), wavBytes(await bytes(afterAudio)), [recorded.render.region]);
    expect(diff.outside).toBe(0);
    expect(diff.inside[0]).toBeGreaterThan(0);
    await f.shot('dubrecord-02-chosen');
  });
});
