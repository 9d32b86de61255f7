import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { multipartBody, rawRequest, startServiceProcess, type ServiceProcess } from '../helpers/service';
import { audioDir } from '../helpers/paths';
import { tempDir } from '../helpers/temp';
import { tone } from '../helpers/signals';
import { encodeSamples, wavHeader } from '../../src/service/media/wav';

const SOURCE = path.join(audioDir, 'asr', 'amateur_LJ001-0001.flac');

function ffmpeg(args: string[]): void {
  execFileSync('ffmpeg', ['-nostdin', '-hide_banner', '-loglevel', 'error', '-y', ...args]);
}

/** A 16-bit mono WAV whose header claims `claimedSeconds` but holds one second of tone. */
function lyingWav(claimedSeconds: number): Buffer {
  const format = { sampleRate: 16000, channels: 1, sampleFormat: 's16' } as const;
  return Buffer.concat([wavHeader(format, claimedSeconds * format.sampleRate), encodeSamples(tone(300, 1, format.sampleRate, 4000 / 32768), 's16')]);
}

interface Upload {
  status: number;
  body: any;
}

/** Media whose headers or names lie: each gets a clear answer, nothing half-stored, no stuck job. */
describe('media that lies', () => {
  let svc: ServiceProcess;
  let auth: Record<string, string>;
  const files: Record<string, Buffer> = {};
  beforeAll(async () => {
    const dir = tempDir('takeline-lying-');
    const wav = path.join(dir, 'full.wav');
    const mp3 = path.join(dir, 'full.mp3');
    const video = path.join(dir, 'silent.mp4');
    ffmpeg(['-i', SOURCE, wav]);
    ffmpeg(['-i', SOURCE, '-c:a', 'libmp3lame', mp3]);
    ffmpeg(['-f', 'lavfi', '-i', 'testsrc=d=2:s=160x120', '-pix_fmt', 'yuv420p', video]);
    const cut = (b: Buffer, share: number) => b.subarray(0, Math.floor(b.length * share));
    files['truncated.flac'] = cut(fs.readFileSync(SOURCE), 0.3);
    files['truncated.wav'] = cut(fs.readFileSync(wav), 0.3);
    files['truncated.mp3'] = cut(fs.readFileSync(mp3), 0.3);
    files['ten-hours.wav'] = lyingWav(10 * 3600);
    files['no-audio.mp4'] = fs.readFileSync(video);
    files['text.wav'] = Buffer.from('This is a text file with a .wav name.\n');
    files['empty.wav'] = Buffer.alloc(0);
    svc = await startServiceProcess();
    auth = { Authorization: `Bearer ${svc.key}` };
  });
  afterAll(async () => {
    await svc?.stop();
  });

  const upload = async (name: string): Promise<Upload> => {
    const { body, contentType } = multipartBody([{ name: 'project_key', value: 'lies' }, { name: 'file', file: files[name]!, filename: name }]);
    const res = await rawRequest(`${svc.url}/v1/speech/transcriptions`, { method: 'POST', headers: { ...auth, 'Content-Type': contentType }, body });
    return { status: res.status, body: res.json() };
  };
  const settle = async (id: string) => {
    const deadline = Date.now() + 90_000;
    for (;;) {
      const s = await (await fetch(`${svc.url}/v1/speech/transcriptions/${id}`, { headers: auth })).json();
      if (s.status === 'complete' || s.status === 'failed') return s;
      if (Date.now() > deadline) throw new Error(`session ${id} stuck in ${s.status}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  };
  const recordings = () => fs.readdirSync(path.join(svc.dataDir, 'recordings')).sort();

  it.each(['text.wav', 'empty.wav'])('refuses %s with 415 and keeps nothing', async (name) => {
    const before = recordings();
    const res = await upload(name);
    expect(res.status).toBe(415);
    expect(res.body.detail).toMatch(/not audio or video|empty/);
    expect(recordings()).toEqual(before);
    expect(fs.readdirSync(path.join(svc.dataDir, 'uploads'))).toEqual([]);
  });

  it.each(['truncated.flac', 'truncated.wav', 'truncated.mp3'])('transcribes what %s holds, and its duration is what decoded', async (name) => {
    const res = await upload(name);
    expect(res.status).toBe(201);
    const session = await settle(res.body.id);
    expect(session.status).toBe('complete');
    // 30% of an 8.4 s file: the header may claim 8.4 s, the session says what was really there.
    expect(session.duration).toBeGreaterThan(1);
    expect(session.duration).toBeLessThan(4);
    const stored = fs.readFileSync(path.join(svc.dataDir, 'recordings', session.id, fs.readdirSync(path.join(svc.dataDir, 'recordings', session.id)).find((f) => f.startsWith('original'))!));
    expect(stored.equals(files[name]!)).toBe(true);
  });

  it('takes a WAV whose header claims 10 hours at its real length', async () => {
    const res = await upload('ten-hours.wav');
    expect(res.status).toBe(201);
    expect(res.body.duration).toBeCloseTo(1, 1);
    const session = await settle(res.body.id);
    expect(session.status).toBe('complete');
    expect(session.duration).toBeCloseTo(1, 1);
  });

  it('takes a video without an audio stream: an empty transcript and flat peaks', async () => {
    const res = await upload('no-audio.mp4');
    expect(res.status).toBe(201);
    expect(res.body.format).toMatchObject({ has_video: true, codec: null });
    const session = await settle(res.body.id);
    expect(session.status).toBe('complete');
    expect(session.transcript.segments).toEqual([]);
    const peaks = await (await fetch(`${svc.url}/v1/speech/transcriptions/${session.id}/peaks`, { headers: auth })).json();
    expect(Math.max(...peaks.peaks)).toBe(0);
  });
});

describe('an ffmpeg decode that hangs', () => {
  let svc: ServiceProcess;
  beforeAll(async () => {
    // ffmpeg that answers -version (the start-up check) but hangs without output when asked to decode.
    const dir = tempDir('takeline-hang-');
    const wrapper = path.join(dir, 'ffmpeg');
    fs.writeFileSync(wrapper, '#!/bin/sh\ncase "$*" in *f32le*) exec sleep 600;; esac\nexec ffmpeg "$@"\n', { mode: 0o755 });
    svc = await startServiceProcess({ env: { TAKELINE_FFMPEG: wrapper, TAKELINE_DECODE_STALL_SECONDS: '2' } });
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it('is stopped at the time limit: the job fails saying so, peaks answer 415, the service goes on', async () => {
    const auth = { Authorization: `Bearer ${svc.key}` };
    const { body, contentType } = multipartBody([{ name: 'project_key', value: 'hang' }, { name: 'file', file: fs.readFileSync(SOURCE), filename: 'take.flac' }]);
    const res = await rawRequest(`${svc.url}/v1/speech/transcriptions`, { method: 'POST', headers: { ...auth, 'Content-Type': contentType }, body });
    expect(res.status).toBe(201);
    const id = res.json().id;
    let session: any;
    const deadline = Date.now() + 30_000;
    do {
      await new Promise((r) => setTimeout(r, 250));
      session = await (await fetch(`${svc.url}/v1/speech/transcriptions/${id}`, { headers: auth })).json();
    } while (session.status !== 'failed' && session.status !== 'complete' && Date.now() < deadline);
    expect(session.status).toBe('failed');
    expect(session.error).toMatch(/produced no audio for 2 s and was stopped/);
    const peaks = await fetch(`${svc.url}/v1/speech/transcriptions/${id}/peaks`, { headers: auth });
    expect(peaks.status).toBe(415);
    expect((await peaks.json()).detail).toMatch(/could not be decoded/);
    expect((await fetch(`${svc.url}/v1/speech/projects`, { headers: auth })).status).toBe(200);

    // The user can retry a failed transcription (here it fails again the same way, as a new job).
    const retry = await fetch(`${svc.url}/v1/speech/transcriptions/${id}/retry`, { method: 'POST', headers: auth });
    expect(retry.status).toBe(202);
    expect(['queued', 'running']).toContain((await retry.json()).status);
    expect((await fetch(`${svc.url}/v1/speech/transcriptions/${id}/retry`, { method: 'POST', headers: auth })).status).toBe(409);
    do {
      await new Promise((r) => setTimeout(r, 250));
      session = await (await fetch(`${svc.url}/v1/speech/transcriptions/${id}`, { headers: auth })).json();
    } while (session.status !== 'failed' && Date.now() < deadline + 30_000);
    expect(session).toMatchObject({ status: 'failed', error: expect.stringMatching(/produced no audio/) });
    const unknown = await fetch(`${svc.url}/v1/speech/transcriptions/00000000-0000-4000-8000-000000000000/retry`, { method: 'POST', headers: auth });
    expect(unknown.status).toBe(404);
  }, 90_000);
});
