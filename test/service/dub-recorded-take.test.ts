import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServiceProcess, multipartBody, rawRequest, type ServiceProcess } from '../helpers/service';
import { tempDir } from '../helpers/temp';
import { compareOutside, createSession, download, dubMaster, uploadDub, wavBytes } from '../helpers/dubs';
import { decodeSamples, encodeWav } from '../../src/service/media/wav';
import { integratedLoudness } from '../../src/service/dsp/loudness';
import { processRecordedTake } from '../../src/service/dubbing/recorded-take/process';

const RATE = 48000;
const CHANNELS = 2;
const LINES = [
  { speaker: 'S1', start: 0.5, end: 3, text: 'Printing, in the only sense.' },
  { speaker: 'S1', start: 4, end: 6.5, text: 'With which we are at present concerned.' },
  { speaker: 'S2', start: 8, end: 11, text: 'Differs from most.' },
];
const COUNT_IN = 0.5;

/** A constructed recording: a quiet click track for the count-in, then 3 s of a gliding tone (longer than the 2.5 s slot). */
function recording(): Float32Array {
  const out = new Float32Array(Math.round((COUNT_IN + 3) * RATE));
  for (let i = 0; i < out.length; i++) {
    const t = i / RATE;
    out[i] = t < COUNT_IN ? (t % 0.25 < 0.02 ? 0.05 * Math.sin(2 * Math.PI * 1000 * t) : 0) : 0.1 * Math.sin(2 * Math.PI * (180 + 40 * (t - COUNT_IN)) * t) * (0.6 + 0.4 * Math.sin(2 * Math.PI * 3 * t));
  }
  return out;
}

/** All frames of a WAV as floats (interleaved). */
const samplesOf = (bytes: Buffer) => {
  const wav = wavBytes(bytes);
  return { wav, samples: decodeSamples(bytes.subarray(wav.layout.dataOffset, wav.layout.dataOffset + wav.layout.frames * wav.layout.channels * 3), 's24') };
};

describe('a recorded take of a dub line (multipart upload)', () => {
  let svc: ServiceProcess;
  let sessionId: string;
  let dubId: string;
  const api = (p: string, init: RequestInit = {}) =>
    fetch(`${svc.url}/v1/speech/transcriptions/${sessionId}/dubs${p}`, {
      ...init,
      headers: { Authorization: `Bearer ${svc.key}`, ...(typeof init.body === 'string' ? { 'Content-Type': 'application/json' } : {}), ...init.headers },
    });
  const upload = (lineId: number, parts: Parameters<typeof multipartBody>[0]) => {
    const { body, contentType } = multipartBody(parts);
    return rawRequest(`${svc.url}/v1/speech/transcriptions/${sessionId}/dubs/${dubId}/lines/${lineId}/takes`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${svc.key}`, 'Content-Type': contentType },
      body,
    });
  };
  const wavFile = (samples: Float32Array) => encodeWav(samples, { sampleRate: RATE, channels: 1, sampleFormat: 'f32' });

  beforeAll(async () => {
    svc = await startServiceProcess();
    sessionId = await createSession(svc);
    const master = fs.readFileSync(dubMaster(tempDir('takeline-dub-recorded-'), 12, { rate: RATE, channels: CHANNELS }));
    const res = await uploadDub(svc, sessionId, [
      { name: 'file', file: master, filename: 'master.wav' },
      { name: 'lines', value: JSON.stringify(LINES) },
    ]);
    expect(res.status, res.text()).toBe(201);
    dubId = res.json().id;
  }, 600_000);
  afterAll(async () => {
    await svc?.stop();
  });

  it('refuses a missing file, a bad count-in, undecodable audio and a recording no longer than its count-in, storing nothing', async () => {
    const missing = await upload(2, [{ name: 'count_in', value: '1' }]);
    expect(missing.status).toBe(422);
    expect(missing.json().detail[0]).toMatchObject({ loc: ['body', 'file'], type: 'missing' });
    const badCountIn = await upload(2, [
      { name: 'file', file: wavFile(recording()), filename: 'take.wav' },
      { name: 'count_in', value: '99' },
    ]);
    expect(badCountIn.status).toBe(422);
    expect(badCountIn.json().detail[0]).toMatchObject({ loc: ['body', 'count_in'] });
    const notAudio = await upload(2, [{ name: 'file', file: Buffer.from('not audio at all '.repeat(100)), filename: 'take.wav' }]);
    expect(notAudio.status).toBe(415);
    expect(notAudio.json().detail).toMatch(/not audio that can be decoded/);
    const short = await upload(2, [
      { name: 'file', file: wavFile(recording().subarray(0, RATE / 4)), filename: 'take.wav' },
      { name: 'count_in', value: String(COUNT_IN) },
    ]);
    expect(short.status).toBe(422);
    expect(short.json().detail).toMatch(/no longer than its count-in/);
    expect((await (await api(`/${dubId}/lines/2/takes`)).json()).data).toEqual([]);
  });

  it('stores the recording as a take (source recorded); chosen, the slot holds the processed recording and nothing outside the region changes', async () => {
    const rec = recording();
    const res = await upload(2, [
      { name: 'file', file: wavFile(rec), filename: 'take.wav' },
      { name: 'count_in', value: String(COUNT_IN) },
    ]);
    expect(res.status, res.text()).toBe(201);
    const [take] = res.json().data;
    expect(take).toMatchObject({ line_id: 2, number: 1, source: 'recorded', status: 'ready', stale: false, chosen: false });
    expect(take.render.flags).toContain('does_not_fit');
    expect(take.audio.url).toBeTruthy();
    const listed = (await (await api(`/${dubId}/lines/2/takes`)).json()).data;
    expect(listed.map((t: { id: string; source: string }) => [t.id, t.source])).toEqual([[take.id, 'recorded']]);

    const dub = await (await api(`/${dubId}`)).json();
    const before = await download((await (await api(`/${dubId}/revisions/${dub.current_revision}`)).json()).audio.url);
    const chose = await api(`/${dubId}/lines/2/take`, { method: 'PUT', body: JSON.stringify({ take_id: take.id }) });
    expect(chose.status, await chose.clone().text()).toBe(200);
    const { revision } = await chose.json();
    expect(revision).toMatchObject({ source: 'take' });
    const after = await download(revision.audio.url);
    const region = take.render.region as { start_frame: number; end_frame: number };

    // Nothing outside the take's region changes.
    const diff = compareOutside(wavBytes(before), wavBytes(after), [region]);
    expect(diff.outside).toBe(0);
    expect(diff.inside[0]).toBeGreaterThan(0);

    // Inside the slot: the recording after the documented processing (computed with the same function here).
    const slotStart = Math.round(LINES[1]!.start * RATE);
    const slotEnd = Math.round(LINES[1]!.end * RATE);
    expect(region.start_frame).toBeLessThanOrEqual(slotStart);
    expect(region.end_frame).toBeGreaterThanOrEqual(slotEnd);
    const original = samplesOf(before).samples;
    const reference = original.subarray(slotStart * CHANNELS, slotEnd * CHANNELS);
    const expected = processRecordedTake({ samples: rec, sampleRate: RATE, preRoll: COUNT_IN, slotFrames: slotEnd - slotStart, reference, channels: CHANNELS });
    const got = samplesOf(after).samples.subarray(slotStart * CHANNELS, slotEnd * CHANNELS);
    const lsb = 1 / 2 ** 23;
    let worst = 0;
    for (let i = 0; i < got.length; i++) worst = Math.max(worst, Math.abs(got[i]! - expected.samples[i]!));
    expect(worst).toBeLessThanOrEqual(lsb * 1.01);

    // Independently: the slot is the recording from the end of the count-in times one gain (before the cut's
    // 10 ms fade), that gain is the one reported, and it brings the line to the original's loudness.
    const from = Math.round(COUNT_IN * RATE);
    expect(Math.abs(expected.gainDb - take.render.gain_db)).toBeLessThanOrEqual(0.005);
    const gain = 10 ** (expected.gainDb / 20);
    const fadeStart = slotEnd - slotStart - Math.round(0.01 * RATE);
    let worstGain = 0;
    for (let f = 0; f < fadeStart; f++) for (let c = 0; c < CHANNELS; c++) worstGain = Math.max(worstGain, Math.abs(got[f * CHANNELS + c]! - rec[from + f]! * gain));
    expect(worstGain).toBeLessThan(1e-4);
    expect(integratedLoudness(got, CHANNELS, RATE)).toBeCloseTo(integratedLoudness(reference, CHANNELS, RATE), 1);

    // Chosen like any take.
    const takes = (await (await api(`/${dubId}/lines/2/takes`)).json()).data;
    expect(takes[0]).toMatchObject({ id: take.id, source: 'recorded', chosen: true });
  });
});
