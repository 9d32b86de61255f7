import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validate } from '@readme/openapi-parser';
import { startServiceProcess, type ServiceProcess } from '../helpers/service';

describe('models and the OpenAPI document', () => {
  let svc: ServiceProcess;
  let auth: Record<string, string>;
  beforeAll(async () => {
    svc = await startServiceProcess();
    auth = { Authorization: `Bearer ${svc.key}` };
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it('lists the installed recognizer with the OpenAI aliases', async () => {
    const res = await fetch(`${svc.url}/v1/audio/models`, { headers: auth });
    expect(res.status).toBe(200);
    const { data } = await res.json();
    const stt = data.find((m: { id: string }) => m.id === 'pocketsphinx-en-us');
    expect(stt).toEqual({
      id: 'pocketsphinx-en-us',
      kind: 'stt',
      tier: 'free',
      supports_streaming: true,
      supports_cloning: false,
      supports_diarization: true,
      formats: ['json', 'text', 'verbose_json', 'srt', 'vtt', 'diarized_json'],
      default_voice: '',
      aliases: expect.arrayContaining(['whisper-1', 'gpt-4o-transcribe']),
    });
  });

  it('does not list an engine whose model is missing', async () => {
    const other = await startServiceProcess({ env: { TAKELINE_POCKETSPHINX_MODEL_DIR: '/nonexistent' } });
    try {
      const { data } = await (await fetch(`${other.url}/v1/audio/models`, { headers: { Authorization: `Bearer ${other.key}` } })).json();
      expect(data.map((m: { id: string }) => m.id)).not.toContain('pocketsphinx-en-us');
    } finally {
      await other.stop();
    }
  });

  it("answers GET /v1/models in OpenAI's list shape", async () => {
    const body = await (await fetch(`${svc.url}/v1/models`, { headers: auth })).json();
    expect(body.object).toBe('list');
    expect(body.data).toEqual(expect.arrayContaining([{ id: 'whisper-1', object: 'model', created: expect.any(Number), owned_by: 'takeline' }]));
    expect((await fetch(`${svc.url}/v1/models/whisper-1`, { headers: auth })).status).toBe(200);
    const missing = await fetch(`${svc.url}/v1/models/nope`, { headers: auth });
    expect(missing.status).toBe(404);
    expect((await missing.json()).error.code).toBe('model_not_found');
  });

  it('serves an OpenAPI 3.1 document that a standard validator accepts', async () => {
    const res = await fetch(`${svc.url}/v1/openapi.json`, { headers: auth });
    expect(res.status).toBe(200);
    const doc = await res.json();
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['ApiKeyHeader', 'BearerAuth']);
    const result = await validate(structuredClone(doc));
    expect(result.valid, JSON.stringify(result)).toBe(true);
    for (const route of [
      '/v1/speech/projects',
      '/v1/speech/transcriptions',
      '/v1/speech/transcriptions/{session_id}',
      '/v1/speech/transcriptions/{session_id}/media',
      '/v1/speech/transcriptions/{session_id}/audio',
      '/v1/audio/models',
      '/v1/audio/transcriptions',
      '/v1/models',
    ]) {
      expect(doc.paths[route], route).toBeDefined();
    }
    expect(doc.components.schemas.MediaPatch.properties.tape.maxLength).toBe(32);
    expect([...doc.components.schemas.MediaPatch.properties.frame_rate.enum].sort()).toEqual(['23.976', '24', '25', '29.97', '30', '50', '59.94', '60'].sort());
    expect((await fetch(`${svc.url}/v1/openapi.json`)).status).toBe(401);
  });

  it('names the address it answers on as its server, and gives every operation a unique operationId', async () => {
    const doc = await (await fetch(`${svc.url}/v1/openapi.json`, { headers: auth })).json();
    // The test service listens on a free port, never the default one.
    expect(doc.servers).toEqual([{ url: svc.url }]);
    const ids: string[] = [];
    for (const [route, item] of Object.entries<Record<string, { operationId?: string }>>(doc.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        expect(operation.operationId, `${method} ${route}`).toMatch(/^[a-z][A-Za-z]+$/);
        ids.push(operation.operationId!);
      }
    }
    expect(ids.length).toBeGreaterThanOrEqual(55);
    expect(new Set(ids).size).toBe(ids.length);
    // OpenAI's own names where the routes are OpenAI's, so generated clients read alike.
    expect(doc.paths['/v1/audio/transcriptions'].post.operationId).toBe('createTranscription');
    expect(doc.paths['/v1/audio/speech'].post.operationId).toBe('createSpeech');
    expect(doc.paths['/v1/models'].get.operationId).toBe('listModels');
  });
});
