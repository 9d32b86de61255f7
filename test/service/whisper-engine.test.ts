import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { startServiceProcess, type ServiceProcess } from '../helpers/service';
import { audioDir, modelsDir } from '../helpers/paths';
import { tempDir } from '../helpers/temp';

// The weightless test model (../shared/models/whisper-for-tests) linked into a models folder's whisper/: it
// loads and transcribes to nothing, which is enough to follow the engine through the API.
const TEST_MODEL = path.join(modelsDir, 'whisper-for-tests', 'for-tests-ggml-tiny.en.bin');
const ENGINE = 'whisper-for-tests-ggml-tiny.en';
const LJ = path.join(audioDir, 'asr', 'ljspeech_LJ001-0001.flac');

describe('Whisper engine through the API', { timeout: 240_000 }, () => {
  let svc: ServiceProcess;
  let client: OpenAI;
  let auth: Record<string, string>;
  beforeAll(async () => {
    const models = tempDir('takeline-models-');
    fs.mkdirSync(path.join(models, 'whisper'));
    fs.symlinkSync(TEST_MODEL, path.join(models, 'whisper', path.basename(TEST_MODEL)));
    svc = await startServiceProcess({ env: { TAKELINE_MODELS_DIR: models } });
    auth = { Authorization: `Bearer ${svc.key}` };
    client = new OpenAI({ apiKey: svc.key, baseURL: `${svc.url}/v1`, maxRetries: 0, timeout: 230_000 });
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it('an installed Whisper model is listed and takes the OpenAI aliases from PocketSphinx', async () => {
    const { data } = await (await fetch(`${svc.url}/v1/audio/models`, { headers: auth })).json();
    // Voices are listed too (kind `tts`); the best recognizer leads the recognizers.
    const recognizers = data.filter((m: { kind: string }) => m.kind === 'stt');
    expect(recognizers[0].id).toBe(ENGINE);
    expect(recognizers[0].aliases).toEqual(expect.arrayContaining(['whisper-1', 'gpt-4o-transcribe']));
    const sphinx = data.find((m: { id: string }) => m.id === 'pocketsphinx-en-us');
    expect(sphinx.aliases).not.toContain('whisper-1');
  });

  it('whisper-1 runs the Whisper engine through VAD, diarization and storage (no words from a weightless model)', async () => {
    const { data, response } = await client.audio.transcriptions
      .create({ file: fs.createReadStream(LJ), model: 'whisper-1', response_format: 'verbose_json', timestamp_granularities: ['word', 'segment'], prompt: 'Printing', temperature: 0.2 })
      .withResponse();
    expect(data.text).toBe('');
    expect(data.segments).toEqual([]);
    expect(data.duration).toBeCloseTo(10, 0);
    const session = await (await fetch(`${svc.url}/v1/speech/transcriptions/${response.headers.get('x-session-id')}`, { headers: auth })).json();
    expect(session.status).toBe('complete');
    expect(session.transcript.engine).toBe(ENGINE);
  });

  it('`model` still chooses PocketSphinx, which hears words', async () => {
    const text = await client.audio.transcriptions.create({ file: fs.createReadStream(LJ), model: 'pocketsphinx-en-us', response_format: 'text' });
    expect(String(text).trim().split(/\s+/).length).toBeGreaterThan(10);
  });

  it('a language the model does not transcribe is refused before any work', async () => {
    const form = new FormData();
    form.append('file', new Blob([fs.readFileSync(LJ)]), 'a.flac');
    form.append('model', ENGINE);
    form.append('language', 'de');
    const res = await fetch(`${svc.url}/v1/audio/transcriptions`, { method: 'POST', headers: auth, body: form });
    expect(res.status).toBe(400);
    expect((await res.json()).error.message).toMatch(/not supported|does not transcribe/);
  });

  it('an upload is transcribed by the best installed engine by default', async () => {
    const form = new FormData();
    form.append('file', new Blob([fs.readFileSync(LJ)]), 'take.flac');
    form.append('project_key', 'whisper');
    const created = await (await fetch(`${svc.url}/v1/speech/transcriptions`, { method: 'POST', headers: auth, body: form })).json();
    let session;
    for (let i = 0; i < 200; i++) {
      session = await (await fetch(`${svc.url}/v1/speech/transcriptions/${created.id}`, { headers: auth })).json();
      if (session.status === 'complete' || session.status === 'failed') break;
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(session.status).toBe('complete');
    expect(session.transcript.engine).toBe(ENGINE);
  });
});
