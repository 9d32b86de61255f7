import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServiceProcess, type ServiceProcess } from '../helpers/service';
import { modelsDir } from '../helpers/paths';
import { tempDir } from '../helpers/temp';

// A stand-in for the download server: ggml-tiny.en.bin is the weightless test model (its SHA-1 is not the
// published tiny.en one, so the service must refuse it); ggml-large-v3.bin announces 16 TiB.
const TEST_MODEL = fs.readFileSync(path.join(modelsDir, 'whisper-for-tests', 'for-tests-ggml-tiny.en.bin'));

describe('Whisper model manager API', { timeout: 120_000 }, () => {
  let svc: ServiceProcess;
  let server: http.Server;
  let base: string;
  let auth: Record<string, string>;
  let models: string;
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      if (req.url === '/ggml-tiny.en.bin') res.writeHead(200, { 'Content-Length': TEST_MODEL.length }).end(TEST_MODEL);
      else if (req.url === '/ggml-large-v3.bin') {
        res.writeHead(200, { 'Content-Length': String(16 * 1024 ** 4) });
        res.write(Buffer.alloc(1024));
        req.socket.on('close', () => res.destroy());
      } else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    models = tempDir('takeline-models-');
    svc = await startServiceProcess({ env: { TAKELINE_MODELS_DIR: models, TAKELINE_WHISPER_BASE_URL: base } });
    auth = { Authorization: `Bearer ${svc.key}` };
  });
  afterAll(async () => {
    await svc?.stop();
    server?.closeAllConnections();
    server?.close();
  });

  const api = (p: string, init: RequestInit = {}) => fetch(`${svc.url}/v1/speech/models/whisper${p}`, { ...init, headers: auth });

  it('lists the catalogue with published sizes and SHA-1s, the folder and the download source', async () => {
    const list = await (await api('')).json();
    expect(list.models_dir).toBe(path.join(models, 'whisper'));
    expect(list.writable).toBe(true);
    expect(list.base_url).toBe(base);
    // The desktop's models are its own folder's (a team's are shared: test/team/team-whisper-models.test.ts).
    expect(list.shared).toBe(false);
    const names = list.data.map((m: { name: string }) => m.name);
    expect(names).toEqual(expect.arrayContaining(['tiny.en', 'base.en', 'small', 'medium.en', 'large-v3', 'large-v3-turbo', 'large-v3-turbo-q5_0']));
    expect(list.data.find((m: { name: string }) => m.name === 'tiny.en')).toMatchObject({
      id: 'whisper-tiny.en',
      size: '75 MiB',
      sha1: 'c78c86eb1a8faa21b369bcd33207cc90d64ae9df',
      installed: false,
      download: null,
    });
  });

  it('downloads from the configured server and refuses a file whose SHA-1 is not the published one', async () => {
    const started = await api('/tiny.en/download', { method: 'POST' });
    expect(started.status).toBe(202);
    expect((await started.json()).download).toMatchObject({ status: 'downloading', total_bytes: TEST_MODEL.length });
    let model;
    for (let i = 0; i < 100; i++) {
      model = await (await api('/tiny.en')).json();
      if (model.download?.status !== 'downloading') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(model.installed).toBe(false);
    expect(model.download).toMatchObject({ status: 'failed', error: { code: 'checksum_mismatch' } });
    expect(fs.readdirSync(path.join(models, 'whisper')).filter((f) => f.endsWith('.bin') || f.endsWith('.part'))).toEqual([]);
    const { data } = await (await fetch(`${svc.url}/v1/audio/models`, { headers: auth })).json();
    expect(data.map((m: { id: string }) => m.id)).not.toContain('whisper-tiny.en');
  });

  it('answers 507 when the file is larger than the free disk space', async () => {
    const res = await api('/large-v3/download', { method: 'POST' });
    expect(res.status).toBe(507);
    expect((await res.json()).detail).toMatch(/Not enough free space/);
    expect(fs.existsSync(path.join(models, 'whisper', 'ggml-large-v3.bin.part'))).toBe(false);
  });

  it('names what is wrong: unknown model 404, malformed name 422, server error 502', async () => {
    expect((await api('/nope/download', { method: 'POST' })).status).toBe(404);
    const bad = await api('/bad%20name/download', { method: 'POST' });
    expect(bad.status).toBe(422);
    expect((await bad.json()).detail[0].loc).toEqual(['path', 'name']);
    const upstream = await api('/base.en/download', { method: 'POST' });
    expect(upstream.status).toBe(502);
    expect((await upstream.json()).detail).toMatch(/answered 404/);
  });

  it('verifies and deletes a model put in place by hand; a wrong file is reported unverified', async () => {
    fs.writeFileSync(path.join(models, 'whisper', 'ggml-tiny.en.bin'), TEST_MODEL);
    expect(await (await api('/tiny.en')).json()).toMatchObject({ installed: true, verified: null, bytes: TEST_MODEL.length });
    expect(await (await api('/tiny.en/verify', { method: 'POST' })).json()).toMatchObject({ verified: false });
    expect((await api('/tiny.en', { method: 'DELETE' })).status).toBe(204);
    expect((await (await api('/tiny.en')).json()).installed).toBe(false);
  });

  it('is in the OpenAPI document', async () => {
    const doc = await (await fetch(`${svc.url}/v1/openapi.json`, { headers: auth })).json();
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/v1/speech/models/whisper', '/v1/speech/models/whisper/{name}/download']));
  });
});
