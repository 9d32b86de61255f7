/**
 * The waveform of an uploaded recording is ready before anyone opens it: peaks are computed in the background
 * once the upload is stored, so the studio's first open reads them instead of decoding the whole file. A
 * recording transcribed in its request (the OpenAI route) gets none: its decoders have the cores.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServiceProcess, uploadRecording, multipartBody, rawRequest, type ServiceProcess } from '../helpers/service';
import { encodeWav } from '../../src/service/media/wav';
import { concat, tone } from '../helpers/signals';
import { until } from '../helpers/poll';

const RATE = 16_000;

describe('waveform peaks at upload', () => {
  let svc: ServiceProcess;
  const peaksFile = (id: string) => path.join(svc.dataDir, 'recordings', id, 'peaks.json');

  beforeAll(async () => {
    svc = await startServiceProcess();
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it('are stored soon after an upload, without a request for them, and are what the route answers', { timeout: 120_000 }, async () => {
    // Two seconds loud, one quiet: the stored peaks must show the step where it is.
    const wav = encodeWav(concat(tone(220, 2, RATE, 0.8), tone(220, 1, RATE, 0.1)), { sampleRate: RATE, channels: 1, sampleFormat: 's16' });
    const id = await uploadRecording(svc, wav, 'step.wav', 'peaks-at-upload');
    const stored = await until(async () => fs.existsSync(peaksFile(id)), Boolean, 60_000);
    expect(stored).toBe(true);
    const peaks = JSON.parse(fs.readFileSync(peaksFile(id), 'utf8')) as { duration: number; peaks_per_second: number; peaks: number[] };
    expect(peaks.duration).toBeCloseTo(3, 2);
    const at = (t: number) => peaks.peaks[Math.round(t * peaks.peaks_per_second)]!;
    expect(at(1)).toBeGreaterThan(0.7);
    expect(at(2.5)).toBeLessThan(0.15);
    const res = await fetch(`${svc.url}/v1/speech/transcriptions/${id}/peaks`, { headers: { Authorization: `Bearer ${svc.key}` } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(peaks);
  });

  it('are not computed for a recording transcribed in its request', { timeout: 120_000 }, async () => {
    const wav = encodeWav(tone(220, 2, RATE, 0.5), { sampleRate: RATE, channels: 1, sampleFormat: 's16' });
    const { body, contentType } = multipartBody([
      { name: 'model', value: 'whisper-1' },
      { name: 'file', file: wav, filename: 'tone.wav', type: 'audio/wav' },
    ]);
    const res = await rawRequest(`${svc.url}/v1/audio/transcriptions`, { method: 'POST', headers: { Authorization: `Bearer ${svc.key}`, 'Content-Type': contentType }, body });
    expect(res.status).toBe(200);
    const id = res.headers['x-session-id'] as string;
    expect(id).toBeTruthy();
    // Given the time the upload's own peaks took above, none appear for this one.
    await new Promise((r) => setTimeout(r, 3000));
    expect(fs.existsSync(peaksFile(id))).toBe(false);
  });
});
