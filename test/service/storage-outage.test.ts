import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { multipartBody, rawRequest, startServiceProcess, transcriptionSettled, uploadRecording, type ServiceProcess } from '../helpers/service';
import { audioDir } from '../helpers/paths';
import { until } from '../helpers/poll';
import { startS3, type ThrowawayS3 } from '../helpers/s3';
import { startStorageSwitch, type StorageSwitch } from '../helpers/storage-switch';
import type { S3BlobStore } from '../../src/service/storage/blobs/s3-blob-store';

const FLAC = path.join(audioDir, 'asr', 'amateur_LJ001-0001.flac');
const RETRY_SECONDS = 8;

interface Summary {
  status: string;
  stage: string | null;
  error: string | null;
}

describe('the S3 gateway down (a real Ceph RGW behind a relay the test switches off)', () => {
  let gateway: ThrowawayS3;
  let store: S3BlobStore;
  let relay: StorageSwitch;
  let svc: ServiceProcess;
  const auth = () => ({ Authorization: `Bearer ${svc.key}` });
  const summary = async (id: string) => (await (await fetch(`${svc.url}/v1/speech/transcriptions/${id}`, { headers: auth() })).json()) as Summary;
  const upload = async () => {
    const form = multipartBody([
      { name: 'project_key', value: 'outage' },
      { name: 'file', file: fs.readFileSync(FLAC), filename: 'take.flac' },
    ]);
    return rawRequest(`${svc.url}/v1/speech/transcriptions`, { method: 'POST', headers: { ...auth(), 'Content-Type': form.contentType }, body: form.body });
  };
  const isGet = (req: { method?: string }) => req.method === 'GET';

  beforeAll(async () => {
    gateway = await startS3();
    store = await gateway.bucket('takeline-outage', 'team/');
    relay = await startStorageSwitch(gateway.endpoint);
    svc = await startServiceProcess({
      env: {
        TAKELINE_STORAGE_URL: 's3://takeline-outage/team',
        TAKELINE_S3_ENDPOINT: relay.endpoint,
        TAKELINE_S3_REGION: gateway.region,
        AWS_ACCESS_KEY_ID: gateway.accessKeyId,
        AWS_SECRET_ACCESS_KEY: gateway.secretAccessKey,
        TAKELINE_STORAGE_RETRY_SECONDS: String(RETRY_SECONDS),
      },
    });
  }, 180_000);
  // Each test starts with the gateway reachable, whatever the one before left.
  afterEach(async () => {
    relay.refuse(null);
    await relay.up();
  });
  afterAll(async () => {
    await svc?.stop();
    await relay?.close();
    store?.close();
    await gateway?.stop();
  });

  it('a job waits for the storage with back-off and goes on once it is back; one that never sees it back fails after the bound, saying why', { timeout: 300_000 }, async () => {
    // Writes pass, reads are dropped: the upload is stored, its transcription cannot read it.
    relay.refuse(isGet);
    const waiting = await uploadRecording(svc, fs.readFileSync(FLAC), 'take.flac', 'outage');
    const seen = await until(() => summary(waiting), (s) => s.stage === 'waiting for storage', 60_000);
    expect(seen.status).not.toBe('failed');
    expect(svc.output()).toMatch(new RegExp(`job \\S+ \\(transcribe\\): s3://takeline-outage/team/ at ${relay.endpoint} is unavailable: .*; trying again in 1 s \\(retry 1\\)`));
    relay.refuse(null);
    expect(await transcriptionSettled(svc, waiting, 240_000), svc.output().slice(-3000)).toBe('complete');

    relay.refuse(isGet);
    const started = Date.now();
    const failing = await uploadRecording(svc, fs.readFileSync(FLAC), 'take.flac', 'outage');
    expect(await transcriptionSettled(svc, failing, 120_000)).toBe('failed');
    // Tried again for close to the bound (1 + 2 s, then 4 s would pass 8 s), not failed at the first outage.
    expect(Date.now() - started).toBeGreaterThan(3_000);
    const failed = await summary(failing);
    expect(failed.error).toMatch(/^The storage was unavailable for \d+ s \(\d+ tries\); retry the job once it is back\.$/);
    expect(svc.output()).toMatch(/job \S+ \(transcribe\) failed: s3:\/\/takeline-outage\/team\/ .* is unavailable: .*; gave up after retrying/);
    relay.refuse(null);
  });

  it('uploads, the signed audio address and exports answer 503 with Retry-After while the gateway is down, the log naming the storage and the cause; all answer again once it is back', { timeout: 300_000 }, async () => {
    const id = await uploadRecording(svc, fs.readFileSync(FLAC), 'take.flac', 'outage');
    expect(await transcriptionSettled(svc, id, 120_000)).toBe('complete');
    const { url: audio } = (await (await fetch(`${svc.url}/v1/speech/transcriptions/${id}/audio`, { headers: auth() })).json()) as { url: string };
    const exportUrl = `${svc.url}/v1/speech/transcriptions/${id}/export?format=wav`;
    const listed = async () => ((await (await fetch(`${svc.url}/v1/speech/transcriptions?project=outage`, { headers: auth() })).json()) as { total?: number; data?: unknown[] });
    const before = await listed();

    await relay.down();
    const refusedUpload = await upload();
    expect(refusedUpload.status).toBe(503);
    expect(refusedUpload.headers['retry-after']).toBe('30');
    expect(refusedUpload.json()).toEqual({ detail: 'The storage is unavailable; nothing was changed. Try again shortly.' });
    expect(svc.output()).toMatch(new RegExp(`storage unavailable on POST /v1/speech/transcriptions: s3://takeline-outage/team/ at ${relay.endpoint} is unavailable: .*ECONNREFUSED`));

    const played = await fetch(audio);
    expect(played.status).toBe(503);
    expect(played.headers.get('retry-after')).toBe('30');
    expect(played.headers.get('content-type')).toMatch(/^application\/json/);
    expect(((await played.json()) as { detail: string }).detail).toMatch(/storage is unavailable/);
    const ranged = await fetch(audio, { headers: { Range: 'bytes=0-99' } });
    expect(ranged.status).toBe(503);

    const exported = await fetch(exportUrl, { headers: auth() });
    expect(exported.status).toBe(503);
    expect(exported.headers.get('retry-after')).toBe('30');
    expect(svc.output()).toMatch(/storage unavailable on GET \/v1\/speech\/transcriptions\/\S+\/export: /);
    expect(svc.output()).not.toMatch(/Internal server error/);

    await relay.up();
    // Nothing of the refused upload was kept; the recording plays and exports again.
    expect(await listed()).toEqual(before);
    expect((await fetch(audio)).status).toBe(200);
    expect((await fetch(exportUrl, { headers: auth() })).status).toBe(200);
  });
});
