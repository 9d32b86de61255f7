import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../../src/service/server';
import { smartWhisperMissing } from '../../src/service/speech/recognition/whisper/addon';
import { WHISPER_CATALOGUE } from '../../src/service/models/whisper/catalogue';
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

// Issue 34: a Whisper model downloaded through one API node is the team's — on its storage, recorded in its database,
// listed by every node, and fetched by a worker (into its own folder, sha256 checked) when it transcribes with it.
describe.skipIf(smartWhisperMissing() !== null)('team mode: Whisper models shared by the nodes', () => {
  it('downloaded through API node A, listed by API node B, fetched and run by a worker, deleted for all', { timeout: 900_000 }, async () => {
    const downloads = http.createServer((req, res) => {
      if (req.url === '/ggml-tiny.en.bin') res.writeHead(200, { 'Content-Length': TEST_MODEL.length }).end(TEST_MODEL);
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => downloads.listen(0, '127.0.0.1', resolve));
    const env = await teamEnv(pg(), 'team_whisper');
    const storage = tempDir('takeline-team-storage-');
    const shared = { ...env, TAKELINE_STORAGE_URL: pathToFileURL(storage).href, TAKELINE_WHISPER_BASE_URL: `http://127.0.0.1:${(downloads.address() as AddressInfo).port}` };
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
      downloads.closeAllConnections();
      downloads.close();
    }
  });
});
