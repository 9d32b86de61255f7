import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../../src/service/server';
import { smartWhisperMissing } from '../../src/service/speech/recognition/whisper/addon';
import { WHISPER_CATALOGUE } from '../../src/service/models/whisper/catalogue';
import { serveFile, type FileServer } from '../../src/service/models/downloads/test-server.testutil';
import { DOWNLOAD_STALE_MS } from '../../src/service/models/whisper/team-downloads';
import { audioDir, modelsDir } from '../helpers/paths';
import { postgresPerFile } from '../helpers/postgres-per-file';
import { multipartBody, rawRequest, startServiceProcess, type ServiceProcess } from '../helpers/service';
import { startWorker, teamEnv, teamQuery, type Worker } from '../helpers/team';
import { tempDir } from '../helpers/temp';
import { until } from '../helpers/poll';

const pg = postgresPerFile();

// The weightless whisper.cpp test model (../shared/models/whisper-for-tests): it loads and transcribes to nothing,
// which is enough to see which engine ran and from which file. Its SHA-1 is not the published tiny.en one, so node A
// (in this process) checks downloads against a catalogue whose tiny.en is this file; the other nodes keep the real one.
const TEST_MODEL = fs.readFileSync(path.join(modelsDir, 'whisper-for-tests', 'for-tests-ggml-tiny.en.bin'));
const SHA256 = crypto.createHash('sha256').update(TEST_MODEL).digest('hex');
const CATALOGUE = WHISPER_CATALOGUE.map((e) => (e.name === 'tiny.en' ? { ...e, sha1: crypto.createHash('sha1').update(TEST_MODEL).digest('hex') } : e));

/** A node's own models folder: the shared test models linked in, and room for its Whisper folder. */
function ownModelsDir(): string {
  const dir = tempDir('takeline-team-models-');
  for (const name of fs.readdirSync(modelsDir)) fs.symlinkSync(path.join(modelsDir, name), path.join(dir, name));
  return dir;
}

/** Every file under `dir`, relative to it. */
function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => path.relative(dir, path.join(e.parentPath, e.name)));
}

// A Whisper model downloaded through one API node is the team's — on its storage, recorded in its database,
// listed by every node, and fetched by a worker (into its own folder, sha256 checked) when it transcribes with it.
describe.skipIf(smartWhisperMissing() !== null)('team mode: Whisper models shared by the nodes', () => {
  // The model's server: `paused` holds a response after its first 64 KiB, so a download stays in progress.
  let downloads: FileServer;
  beforeAll(async () => {
    downloads = await serveFile('ggml-tiny.en.bin', TEST_MODEL);
  });
  afterAll(() => downloads.close());

  it('downloaded through API node A, listed by API node B, fetched and run by a worker, deleted for all', { timeout: 900_000 }, async () => {
    const env = await teamEnv(pg(), 'team_whisper');
    const storage = tempDir('takeline-team-storage-');
    const shared = { ...env, TAKELINE_STORAGE_URL: pathToFileURL(storage).href, TAKELINE_WHISPER_BASE_URL: downloads.url };
    const node = (name: string) => ({ TAKELINE_DATA_DIR: tempDir(`takeline-team-${name}-`), TAKELINE_MODELS_DIR: ownModelsDir() });
    const [a, b, w] = [node('api-a'), node('api-b'), node('worker')];
    const logA: string[] = [];
    let apiA: RunningService | null = null;
    let apiB: ServiceProcess | null = null;
    let worker: Worker | null = null;
    try {
      apiA = await startService({ env: { ...process.env, ...shared, ...a }, role: 'api', port: 0, whisperCatalogue: CATALOGUE, log: (line) => logA.push(line) });
      apiB = await startServiceProcess({ dataDir: b.TAKELINE_DATA_DIR, env: { ...shared, ...b } });
      worker = await startWorker({ ...shared, ...w });
      const auth = { Authorization: `Bearer ${env.TAKELINE_API_KEY}` };
      const get = async (base: string, p: string) => {
        const res = await fetch(`${base}${p}`, { headers: auth });
        expect(res.status, p).toBe(200);
        return res.json();
      };
      const recognizers = async (base: string) => ((await get(base, '/v1/audio/models')).data as Array<{ id: string; kind: string }>).filter((m) => m.kind === 'stt').map((m) => m.id);
      const urlA = apiA.url;
      const urlB = apiB.url;

      // Nothing installed yet, anywhere; the list says its models are the team's.
      const before = await get(urlB, '/v1/speech/models/whisper');
      expect(before.shared).toBe(true);
      expect(before.data.find((m: { name: string }) => m.name === 'tiny.en').installed).toBe(false);
      expect(await recognizers(urlB)).not.toContain('whisper-tiny.en');

      // Downloaded through A (202, then it runs on): verified, stored on the team's storage, recorded.
      const started = await fetch(`${urlA}/v1/speech/models/whisper/tiny.en/download`, { method: 'POST', headers: auth });
      expect(started.status).toBe(202);
      const onA = await until(() => get(urlA, '/v1/speech/models/whisper/tiny.en'), (m) => m.installed || m.download?.status === 'failed', 60_000);
      expect(onA, JSON.stringify(onA.download)).toMatchObject({ installed: true, verified: true, bytes: TEST_MODEL.length, download: null });
      const key = `speech-models/whisper/${SHA256}/ggml-tiny.en.bin`;
      expect(fs.readFileSync(path.join(storage, key)).equals(TEST_MODEL)).toBe(true);
      const rows = await teamQuery<{ name: string; blob_key: string; sha256: string; bytes: number }>(env.TAKELINE_DATABASE_URL!, 'SELECT name, blob_key, sha256, bytes FROM whisper_models');
      expect(rows.map((r) => ({ ...r, bytes: Number(r.bytes) }))).toEqual([{ name: 'tiny.en', blob_key: key, sha256: SHA256, bytes: TEST_MODEL.length }]);
      // A (an API node, which runs no model) kept nothing of its download; no node has a copy yet.
      expect(filesUnder(path.join(a.TAKELINE_MODELS_DIR, 'whisper'))).toEqual([]);
      expect(filesUnder(path.join(w.TAKELINE_MODELS_DIR, 'whisper'))).toEqual([]);

      // B lists it as installed (B's catalogue has the published SHA-1, which this stand-in is not: unverified there),
      // and offers it as the best recognizer.
      expect(await get(urlB, '/v1/speech/models/whisper/tiny.en')).toMatchObject({ installed: true, bytes: TEST_MODEL.length, verified: false });
      expect((await recognizers(urlB))[0]).toBe('whisper-tiny.en');
      expect(filesUnder(path.join(b.TAKELINE_MODELS_DIR, 'whisper'))).toEqual([]);

      // An upload through B is transcribed by the worker with that model: the worker fetched its own verified copy.
      const upload = async () => {
        const { body, contentType } = multipartBody([
          { name: 'project_key', value: 'whisper' },
          { name: 'file', file: fs.readFileSync(path.join(audioDir, 'asr', 'amateur_LJ001-0174.flac')), filename: 'take.flac' },
        ]);
        const res = await rawRequest(`${urlB}/v1/speech/transcriptions`, { method: 'POST', headers: { ...auth, 'Content-Type': contentType }, body });
        expect(res.status).toBe(201);
        const id = res.json().id as string;
        return until(() => get(urlB, `/v1/speech/transcriptions/${id}`), (s) => s.status === 'complete' || s.status === 'failed', 600_000);
      };
      const done = await upload();
      expect(done.status, done.error ?? '').toBe('complete');
      expect(done.transcript.engine).toBe('whisper-tiny.en');
      expect(worker.output()).toMatch(/fetched ggml-tiny\.en\.bin from the team's storage \(586836 bytes in [\d.]+ s, sha256 verified\)/);
      const copy = path.join(w.TAKELINE_MODELS_DIR, 'whisper', 'team', SHA256, 'ggml-tiny.en.bin');
      expect(filesUnder(path.join(w.TAKELINE_MODELS_DIR, 'whisper'))).toEqual([`team/${SHA256}/ggml-tiny.en.bin`]);
      expect(crypto.createHash('sha256').update(fs.readFileSync(copy)).digest('hex')).toBe(SHA256);

      // Deleted through B: gone from the database and the storage, so no node lists it; the worker's copy goes when it
      // next reads the team's models (its next job).
      expect((await fetch(`${urlB}/v1/speech/models/whisper/tiny.en`, { method: 'DELETE', headers: auth })).status).toBe(204);
      expect(await teamQuery(env.TAKELINE_DATABASE_URL!, 'SELECT name FROM whisper_models')).toEqual([]);
      expect(fs.existsSync(path.join(storage, key))).toBe(false);
      expect((await get(urlA, '/v1/speech/models/whisper/tiny.en')).installed).toBe(false);
      expect(await recognizers(urlA)).not.toContain('whisper-tiny.en');
      expect(fs.existsSync(copy)).toBe(true);
      const next = await upload();
      expect(next.status, next.error ?? '').toBe('complete');
      expect(next.transcript.engine).not.toBe('whisper-tiny.en');
      expect(filesUnder(path.join(w.TAKELINE_MODELS_DIR, 'whisper'))).toEqual([]);
    } finally {
      await worker?.stop().catch(() => {});
      await apiB?.stop();
      await apiA?.stop();
    }
  });

  // A download is the team's, not its node's: behind a load balancer a client's poll, cancel or delete lands on any node.
  // Node P is a process (so it can be killed; its catalogue is the real one, which the stand-in model does not match, so
  // its downloads are only ever stopped); node N runs in this test (its catalogue matches: its downloads can finish).
  it('progress, cancel and delete through any node; a killed node\'s download reads as interrupted and starts again elsewhere', { timeout: 600_000 }, async () => {
    const env = await teamEnv(pg(), 'team_whisper_downloads');
    const storage = tempDir('takeline-team-storage-');
    const shared = { ...env, TAKELINE_STORAGE_URL: pathToFileURL(storage).href, TAKELINE_WHISPER_BASE_URL: downloads.url };
    const node = (name: string) => ({ TAKELINE_DATA_DIR: tempDir(`takeline-team-${name}-`), TAKELINE_MODELS_DIR: ownModelsDir() });
    const [n, p] = [node('api-n'), node('api-p')];
    const logN: string[] = [];
    let apiN: RunningService | null = null;
    let apiP: ServiceProcess | null = null;
    try {
      apiN = await startService({ env: { ...process.env, ...shared, ...n }, role: 'api', port: 0, whisperCatalogue: CATALOGUE, log: (line) => logN.push(line) });
      apiP = await startServiceProcess({ dataDir: p.TAKELINE_DATA_DIR, env: { ...shared, ...p } });
      const auth = { Authorization: `Bearer ${env.TAKELINE_API_KEY}` };
      const call = async (base: string, method: string, suffix: string, expected: number) => {
        const res = await fetch(`${base}/v1/speech/models/whisper/tiny.en${suffix}`, { method, headers: auth });
        expect(res.status, `${method} ${suffix}`).toBe(expected);
        return res.status === 204 ? null : res.json();
      };
      const model = (base: string) => call(base, 'GET', '', 200);
      const [urlN, urlP] = [apiN.url, apiP.url];
      const partOf = (dir: string) => path.join(dir, 'whisper', 'ggml-tiny.en.bin.part');
      /** Starts a download through `base`, held by the server, and waits until `other` shows its first bytes. */
      const downloadHeld = async (base: string, other: string) => {
        downloads.paused = true;
        expect((await call(base, 'POST', '/download', 202)).download).toMatchObject({ status: 'downloading', total_bytes: TEST_MODEL.length });
        const seen = await until(() => model(other), (m) => (m.download?.received_bytes ?? 0) >= 65536, 30_000);
        expect(seen.download).toMatchObject({ status: 'downloading', total_bytes: TEST_MODEL.length, error: null });
        return seen;
      };

      // 1. P downloads; N shows its progress, and a download asked through N joins it (202, the same download).
      const requests = downloads.ranges.length;
      const polled = await downloadHeld(urlP, urlN);
      const joined = await call(urlN, 'POST', '/download', 202);
      expect(joined.download).toMatchObject({ status: 'downloading', started_at: polled.download.started_at });
      expect(downloads.ranges.length - requests).toBe(1);

      // 2. Cancelled through N: P stops its download, and N answers once it has; the bytes kept are P's.
      const asked = Date.now();
      const cancelled = await call(urlN, 'DELETE', '/download?discard=false', 200);
      const cancelMs = Date.now() - asked;
      console.log(`team whisper download: a cancel through another node answered in ${cancelMs} ms`);
      expect(cancelMs).toBeLessThan(3_000);
      expect(cancelled.download).toMatchObject({ status: 'cancelled', error: { code: 'cancelled' } });
      expect(cancelled.download.received_bytes).toBeGreaterThanOrEqual(65536);
      expect(cancelled.partial_bytes).toBe(0);
      const onP = await model(urlP);
      expect(onP.download).toMatchObject({ status: 'cancelled', received_bytes: cancelled.download.received_bytes });
      expect(onP.partial_bytes).toBe(cancelled.download.received_bytes);
      expect(fs.statSync(partOf(p.TAKELINE_MODELS_DIR)).size).toBe(cancelled.download.received_bytes);
      const sent = downloads.sentBytes();
      await new Promise((r) => setTimeout(r, 500));
      expect(downloads.sentBytes()).toBe(sent);

      // 3. N downloads (it would finish: its catalogue matches); deleted through P meanwhile, nothing is recorded once
      // the server lets the rest go.
      await downloadHeld(urlN, urlP);
      await call(urlP, 'DELETE', '', 204);
      downloads.paused = false;
      await apiN.context.whisperModels.settled('tiny.en');
      expect(await teamQuery(env.TAKELINE_DATABASE_URL!, 'SELECT name FROM whisper_models')).toEqual([]);
      expect(await teamQuery(env.TAKELINE_DATABASE_URL!, 'SELECT name FROM whisper_model_downloads')).toEqual([]);
      expect(filesUnder(storage).filter((f) => f.startsWith('speech-models'))).toEqual([]);
      expect(logN.join('\n')).not.toMatch(/stored on/);
      for (const base of [urlN, urlP]) expect(await model(base)).toMatchObject({ installed: false, partial_bytes: 0, download: null });
      expect(fs.existsSync(partOf(p.TAKELINE_MODELS_DIR))).toBe(false);
      expect(fs.existsSync(partOf(n.TAKELINE_MODELS_DIR))).toBe(false);

      // 4. P downloads and is killed: its download shows as downloading until its lease runs out, then as interrupted,
      // and a download through N starts over and installs the model for the team.
      await downloadHeld(urlP, urlN);
      await apiP.kill();
      const killed = Date.now();
      const interrupted = await until(() => model(urlN), (m) => m.download?.status !== 'downloading', DOWNLOAD_STALE_MS + 30_000);
      const staleMs = Date.now() - killed;
      console.log(`team whisper download: a killed node's download read as interrupted ${staleMs} ms after the kill`);
      expect(interrupted.download).toMatchObject({ status: 'failed', error: { code: 'interrupted' } });
      expect(staleMs).toBeGreaterThan(DOWNLOAD_STALE_MS - 2_000);
      downloads.paused = false;
      expect((await call(urlN, 'POST', '/download', 202)).download.resumed_from).toBe(0);
      const installed = await until(() => model(urlN), (m) => m.installed || m.download?.status !== 'downloading', 60_000);
      expect(installed, JSON.stringify(installed.download)).toMatchObject({ installed: true, verified: true, bytes: TEST_MODEL.length, download: null });
      const rows = await teamQuery<{ name: string; sha256: string }>(env.TAKELINE_DATABASE_URL!, 'SELECT name, sha256 FROM whisper_models');
      expect(rows).toEqual([{ name: 'tiny.en', sha256: SHA256 }]);
    } finally {
      downloads.paused = false;
      await apiP?.stop();
      await apiN?.stop();
    }
  });
});
