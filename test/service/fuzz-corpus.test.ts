import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest, startServiceProcess, type ServiceProcess } from '../helpers/service';
import { multipart } from '../helpers/fuzz/requests';
import { send, tinyWav } from '../helpers/fuzz/run-fuzz';

/** Failing cases the contract fuzzer found (test/service/fuzz.test.ts), kept as regression tests. */
describe('fuzz regression corpus', () => {
  let svc: ServiceProcess;
  let auth: Record<string, string>;
  beforeAll(async () => {
    svc = await startServiceProcess({ env: { TAKELINE_MODELS_DIR: '' } });
    auth = { Authorization: `Bearer ${svc.key}` };
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it('answers every OpenAI-style route without a key with 401 in the error envelope', async () => {
    for (const route of ['/v1/models', '/v1/models/whisper-1', '/v1/audio/models', '/v1/audio/transcriptions', '/v1/audio/speech', '/v1/audio/nothing']) {
      for (const method of ['GET', 'POST']) {
        const res = await rawRequest(`${svc.url}${route}`, { method });
        expect(res.status).toBe(401);
        expect(res.json()).toEqual({ error: { message: expect.stringMatching(/API key/), type: 'authentication_error', param: null, code: 'missing_api_key' } });
      }
    }
  });

  it('answers a request line over 16 KiB with 431 in the prefix shape (Node used to answer with an empty body)', async () => {
    const long = '%C3%A9'.repeat(3000);
    const speech = await send(svc.url, { method: 'GET', path: `/v1/speech/models/whisper/${long}`, headers: { 'X-API-Key': 'tl_wrong' } });
    expect(speech).toMatchObject({ status: 431 });
    if ('error' in speech) throw new Error(speech.error);
    expect(JSON.parse(speech.body.toString())).toEqual({ detail: expect.stringMatching(/too large/) });
    const openai = await send(svc.url, { method: 'GET', path: `/v1/models/${long}`, headers: auth });
    if ('error' in openai) throw new Error(openai.error);
    expect(openai.status).toBe(431);
    expect(JSON.parse(openai.body.toString()).error).toMatchObject({ type: 'invalid_request_error', code: 'request_too_large' });
    // The service still answers afterwards.
    expect((await fetch(`${svc.url}/healthz`)).status).toBe(200);
  });

  it('leaves no temporary upload behind when a multipart body is cut short (the file used to appear after the clean-up)', async () => {
    const audio = tinyWav(1);
    for (let i = 0; i < 30; i++) {
      const body = multipart([{ name: 'project_key', value: 'cut' }, { name: 'file', file: audio, filename: 'a.wav' }], 'cutboundary');
      const cut = body.subarray(0, 60 + ((i * 977) % (body.length - 80)));
      const res = await rawRequest(`${svc.url}/v1/speech/transcriptions`, {
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'multipart/form-data; boundary=cutboundary', 'Content-Length': cut.length },
        body: cut,
      });
      expect(res.status).toBe(422);
      expect(res.json().detail[0]).toMatchObject({ type: 'multipart_invalid' });
      expect(fs.readdirSync(path.join(svc.dataDir, 'uploads'))).toEqual([]);
    }
  });

  it('reading the Whisper catalogue or an unknown model creates nothing in the data folder (it used to create models/whisper)', async () => {
    expect((await fetch(`${svc.url}/v1/speech/models/whisper`, { headers: auth })).status).toBe(200);
    expect((await fetch(`${svc.url}/v1/speech/models/whisper/0x10`, { headers: auth })).status).toBe(404);
    expect(fs.existsSync(path.join(svc.dataDir, 'models'))).toBe(false);
    const catalogue = await (await fetch(`${svc.url}/v1/speech/models/whisper`, { headers: auth })).json();
    expect(catalogue.writable).toBe(true);
    expect(catalogue.free_bytes).toBeGreaterThan(0);
  });
});
