import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { multipartBody, rawRequest, startServiceProcess, type ServiceProcess } from '../helpers/service';
import { audioDir } from '../helpers/paths';
import { inspectDatabase, waitFor } from '../helpers/crash';
import { startS3, type ThrowawayS3 } from '../helpers/s3';
import { S3BlobStore } from '../../src/service/storage/blobs/s3-blob-store';
import { signAudio } from '../../src/service/auth/signed-url';

const FLAC = path.join(audioDir, 'asr', 'amateur_LJ001-0001.flac');
const sha256 = (data: Buffer) => crypto.createHash('sha256').update(data).digest('hex');

async function upload(svc: ServiceProcess, file: Buffer): Promise<string> {
  const form = multipartBody([
    { name: 'project_key', value: 'blobs' },
    { name: 'file', file, filename: 'take.flac' },
  ]);
  const res = await rawRequest(`${svc.url}/v1/speech/transcriptions`, { method: 'POST', headers: { Authorization: `Bearer ${svc.key}`, 'Content-Type': form.contentType }, body: form.body });
  expect(res.status).toBe(201);
  return (res.json() as { id: string }).id;
}

async function audioUrl(svc: ServiceProcess, id: string): Promise<string> {
  return ((await (await fetch(`${svc.url}/v1/speech/transcriptions/${id}/audio`, { headers: { Authorization: `Bearer ${svc.key}` } })).json()) as { url: string }).url;
}

describe('recordings on S3 (TAKELINE_STORAGE_URL=s3://…)', () => {
  let gateway: ThrowawayS3;
  let store: S3BlobStore;
  let svc: ServiceProcess | null = null;
  beforeAll(async () => {
    gateway = await startS3();
    store = await gateway.bucket('takeline-team', 'studio/');
    svc = await startServiceProcess({
      env: {
        TAKELINE_STORAGE_URL: 's3://takeline-team/studio',
        TAKELINE_S3_ENDPOINT: gateway.endpoint,
        TAKELINE_S3_REGION: gateway.region,
        AWS_ACCESS_KEY_ID: gateway.accessKeyId,
        AWS_SECRET_ACCESS_KEY: gateway.secretAccessKey,
      },
    });
  }, 180_000);
  afterAll(async () => {
    await svc?.stop();
    store?.close();
    await gateway?.stop();
  });

  it('stores the upload in the bucket, serves the signed address with Range from it, and deletes the objects with the recording', { timeout: 240_000 }, async () => {
    const original = fs.readFileSync(FLAC);
    const id = await upload(svc!, original);
    // The original is in the bucket, not in the data folder.
    expect(await store.list(`recordings/${id}/`)).toEqual([`recordings/${id}/original.flac`]);
    expect(fs.existsSync(path.join(svc!.dataDir, 'recordings', id))).toBe(false);

    const url = await audioUrl(svc!, id);
    const whole = await fetch(url);
    expect(whole.status).toBe(200);
    expect(whole.headers.get('accept-ranges')).toBe('bytes');
    expect(whole.headers.get('content-type')).toBe('audio/flac');
    expect(sha256(Buffer.from(await whole.arrayBuffer()))).toBe(sha256(original));
    const range = await fetch(url, { headers: { Range: 'bytes=100-199' } });
    expect(range.status).toBe(206);
    expect(range.headers.get('content-range')).toBe(`bytes 100-199/${original.length}`);
    expect(Buffer.from(await range.arrayBuffer()).equals(original.subarray(100, 200))).toBe(true);
    const head = await fetch(url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(original.length));
    const beyond = await fetch(url, { headers: { Range: `bytes=${original.length}-` } });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get('content-range')).toBe(`bytes */${original.length}`);
    expect((await fetch(url.replace(/signature=[^&]+/, 'signature=AAAA'))).status).toBe(403);

    // Derived files go to the bucket too, computed from a scratch copy (shared with the running transcription).
    const peaks = await fetch(`${svc!.url}/v1/speech/transcriptions/${id}/peaks`, { headers: { Authorization: `Bearer ${svc!.key}` } });
    expect(peaks.status).toBe(200);
    expect(((await peaks.json()) as { peaks: number[] }).peaks.length).toBeGreaterThan(0);
    expect((await store.list(`recordings/${id}/`)).sort()).toEqual([`recordings/${id}/original.flac`, `recordings/${id}/peaks.json`]);

    const deleted = await fetch(`${svc!.url}/v1/speech/transcriptions/${id}`, { method: 'DELETE', headers: { Authorization: `Bearer ${svc!.key}` } });
    expect(deleted.status).toBe(204);
    expect(await store.list(`recordings/${id}/`)).toEqual([]);
    expect((await fetch(url)).status).toBe(403);
    // The deleted recording's job is stopped and the last user of the scratch copy lets it go.
    const copies = () => fs.readdirSync(path.join(svc!.dataDir, 'scratch')).filter((f) => f.startsWith('blob-'));
    await waitFor(async () => copies().length === 0, 'the scratch copy to be removed', 30_000);
  });
});

describe('the audio-address key of a desktop folder from before', () => {
  it('moves into the database on the first start: an address signed with the old key file still plays', { timeout: 180_000 }, async () => {
    let svc = await startServiceProcess();
    const id = await upload(svc, fs.readFileSync(FLAC));
    await svc.stop();
    // The folder as an earlier version left it: the key in secrets/audio-url.key, no row in the database.
    const oldKey = crypto.randomBytes(32);
    fs.writeFileSync(path.join(svc.dataDir, 'secrets', 'audio-url.key'), oldKey, { mode: 0o600 });
    const db = new Database(path.join(svc.dataDir, 'takeline.db'));
    db.prepare('DELETE FROM secrets').run();
    db.close();
    const expires = Math.floor(Date.now() / 1000) + 1800;
    const handedOut = `/v1/speech/transcriptions/${id}/audio/original?expires=${expires}&signature=${signAudio(oldKey, id, expires)}`;

    svc = await startServiceProcess({ dataDir: svc.dataDir });
    try {
      expect((await fetch(`${svc.url}${handedOut}`)).status).toBe(200);
      expect(fs.existsSync(path.join(svc.dataDir, 'secrets', 'audio-url.key'))).toBe(false);
      const stored = inspectDatabase(svc.dataDir, (d) => (d.prepare("SELECT value FROM secrets WHERE name = 'audio-url'").get() as { value: string }).value);
      expect(Buffer.from(stored, 'base64').equals(oldKey)).toBe(true);
      // New addresses are signed with the same key.
      expect((await fetch(await audioUrl(svc, id))).status).toBe(200);
    } finally {
      await svc.stop();
    }
  });
});
