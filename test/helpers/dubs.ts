import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { audioDir } from './paths';
import { multipartBody, rawRequest, type ServiceProcess } from './service';
import { frameBytes, parseWavHeader, type WavLayout } from '../../src/service/media/wav';
import type { Revoice } from '../../src/shared/schemas/dubs';

export const LONG_FILE = path.join(audioDir, 'long', 'read_speech_concat.flac');

/** The reference lines of the joined read-speech file (real recordings, real texts) that end by `seconds`. */
export function referenceLines(seconds: number): Array<{ speaker: string; start: number; end: number; text: string }> {
  const rows = fs.readFileSync(path.join(audioDir, 'long', 'read_speech_concat.segments.tsv'), 'utf8').trim().split('\n').slice(1);
  return rows
    .map((row) => row.split('\t'))
    .map(([start, end, , text], i) => ({ speaker: i % 2 === 0 ? 'S1' : 'S2', start: Number(start), end: Number(end), text: text! }))
    .filter((l) => l.end <= seconds);
}

/** `seconds` of the read-speech file as a dub master: WAV at the given rate, channels and codec. */
export function dubMaster(dir: string, seconds: number, options: { rate?: number; channels?: number; codec?: string; name?: string; mixWith?: string } = {}): string {
  const file = path.join(dir, options.name ?? 'dub.wav');
  const rate = String(options.rate ?? 48000);
  const channels = String(options.channels ?? 2);
  const args = ['-v', 'error', '-y', '-t', String(seconds), '-i', LONG_FILE];
  if (options.mixWith) {
    args.push('-stream_loop', '-1', '-t', String(seconds), '-i', options.mixWith, '-filter_complex', '[0:a][1:a]amix=inputs=2:duration=first:normalize=0[a]', '-map', '[a]');
  }
  execFileSync('ffmpeg', [...args, '-ar', rate, '-ac', channels, '-c:a', options.codec ?? 'pcm_s24le', file]);
  return file;
}

export async function createSession(svc: ServiceProcess, projectKey = 'dubbing'): Promise<string> {
  const { body, contentType } = multipartBody([
    { name: 'project_key', value: projectKey },
    { name: 'file', file: fs.readFileSync(path.join(audioDir, 'asr', 'amateur_LJ001-0001.flac')), filename: 'take.flac' },
  ]);
  const res = await rawRequest(`${svc.url}/v1/speech/transcriptions`, { method: 'POST', headers: { Authorization: `Bearer ${svc.key}`, 'Content-Type': contentType }, body });
  if (res.status !== 201) throw new Error(`upload failed: ${res.status} ${res.text()}`);
  return res.json().id;
}

/** Waits until the session's transcription job is done, so a revoice queued after it starts at once. */
export async function sessionSettled(svc: ServiceProcess, sessionId: string): Promise<void> {
  for (let i = 0; i < 1200; i++) {
    const session = await (await fetch(`${svc.url}/v1/speech/transcriptions/${sessionId}`, { headers: { Authorization: `Bearer ${svc.key}` } })).json();
    if (session.status === 'complete' || session.status === 'failed') return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the session never settled');
}

export async function uploadDub(
  svc: ServiceProcess,
  sessionId: string,
  parts: Array<{ name: string; value?: string; file?: Buffer; filename?: string }>,
) {
  const { body, contentType } = multipartBody(parts);
  return rawRequest(`${svc.url}/v1/speech/transcriptions/${sessionId}/dubs`, { method: 'POST', headers: { Authorization: `Bearer ${svc.key}`, 'Content-Type': contentType }, body });
}

export interface WavBytes {
  layout: WavLayout;
  bytes: Buffer;
  /** The bytes of frame i. */
  frame(i: number): Buffer;
}

export function wavBytes(bytes: Buffer): WavBytes {
  const layout = parseWavHeader(bytes);
  const size = frameBytes(layout);
  return { layout, bytes, frame: (i) => bytes.subarray(layout.dataOffset + i * size, layout.dataOffset + (i + 1) * size) };
}

/**
 * Compares two revisions frame by frame: every frame outside the given [start, end) regions must be
 * byte-identical. Returns how many frames differ outside (must be 0) and inside each region.
 */
export function compareOutside(before: WavBytes, after: WavBytes, regions: Array<{ start_frame: number; end_frame: number }>): { outside: number; inside: number[] } {
  const inside = regions.map(() => 0);
  let outside = 0;
  const size = frameBytes(before.layout);
  for (let i = 0; i < before.layout.frames; i++) {
    const a = before.bytes.subarray(before.layout.dataOffset + i * size, before.layout.dataOffset + (i + 1) * size);
    const b = after.bytes.subarray(after.layout.dataOffset + i * size, after.layout.dataOffset + (i + 1) * size);
    if (a.equals(b)) continue;
    const region = regions.findIndex((r) => i >= r.start_frame && i < r.end_frame);
    if (region < 0) outside++;
    else inside[region]!++;
  }
  return { outside, inside };
}

export async function download(url: string): Promise<Buffer> {
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`download ${url}: ${res.status}`);
  return Buffer.from(await res.arrayBuffer());
}

/**
 * Starts a revoice of a dub and follows it to its end (the machine may be busy: no fixed wait). `api` fetches a path
 * under the recording's `/dubs`.
 */
export async function revoiceToEnd(api: (p: string, init?: RequestInit) => Promise<Response>, dubId: string): Promise<Revoice> {
  const started = await api(`/${dubId}/revoice?wait=0`, { method: 'POST' });
  if (started.status !== 200 && started.status !== 202) throw new Error(`revoice: ${started.status} ${await started.text()}`);
  let revoice = (await started.json()) as Revoice;
  for (let i = 0; i < 1200 && (revoice.status === 'queued' || revoice.status === 'running'); i++) {
    await new Promise((r) => setTimeout(r, 500));
    revoice = (await (await api(`/${dubId}/revoices/${revoice.id}`)).json()) as Revoice;
  }
  return revoice;
}

/**
 * The studio tests' dub: a recording made from the short read-speech file (so the dub has a session), and a dub of
 * `seconds` of the long one (48 kHz stereo) with the given lines, through the API as `key`. Returns both ids.
 */
export async function studioDub(
  serviceUrl: string,
  key: string,
  work: string,
  project: string,
  lines: Array<{ speaker: string; start: number; end: number; text: string }>,
  seconds = 12,
): Promise<{ sessionId: string; dubId: string }> {
  const post = async (p: string, form: FormData) => {
    const res = await fetch(`${serviceUrl}${p}`, { method: 'POST', headers: { Authorization: `Bearer ${key}` }, body: form });
    if (res.status !== 201) throw new Error(`POST ${p}: ${res.status} ${await res.text()}`);
    return (await res.json()) as { id: string };
  };
  const form = new FormData();
  form.append('project_key', project);
  form.append('file', await fs.openAsBlob(path.join(audioDir, 'asr', 'amateur_LJ001-0001.flac')), 'take.flac');
  const sessionId = (await post('/v1/speech/transcriptions', form)).id;
  const dubForm = new FormData();
  dubForm.append('file', await fs.openAsBlob(dubMaster(work, seconds, { rate: 48000, channels: 2 })), 'master.wav');
  dubForm.append('lines', JSON.stringify(lines));
  const dubId = (await post(`/v1/speech/transcriptions/${sessionId}/dubs`, dubForm)).id;
  return { sessionId, dubId };
}
