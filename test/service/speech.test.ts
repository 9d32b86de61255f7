import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { startServiceProcess, type ServiceProcess } from '../helpers/service';
import { tempDir } from '../helpers/temp';
import { childProcesses } from '../helpers/proc-stat';
import { decodeWav } from '../../src/service/media/wav';
import { wordErrorRate } from '../../src/service/speech/scoring/wer';
import { speakerPitch } from '../../src/service/speech/speakers/pitch-gender';

const SENTENCE = 'The quick brown fox jumps over the lazy dog near the river bank.';

function probe(file: string): { codec: string; rate: number; channels: number; duration: number } {
  const out = JSON.parse(
    execFileSync('ffprobe', ['-v', 'error', '-print_format', 'json', '-show_streams', '-show_format', file], { encoding: 'utf8' }),
  );
  const stream = out.streams[0];
  return { codec: stream.codec_name, rate: Number(stream.sample_rate), channels: stream.channels, duration: Number(out.format.duration ?? stream.duration) };
}

describe('POST /v1/audio/speech', () => {
  let svc: ServiceProcess;
  let client: OpenAI;
  let dir: string;
  const auth = () => ({ Authorization: `Bearer ${svc.key}`, 'Content-Type': 'application/json' });
  const speech = (body: unknown) => fetch(`${svc.url}/v1/audio/speech`, { method: 'POST', headers: auth(), body: JSON.stringify(body) });

  beforeAll(async () => {
    svc = await startServiceProcess();
    client = new OpenAI({ apiKey: svc.key, baseURL: `${svc.url}/v1`, maxRetries: 0, timeout: 60_000 });
    dir = tempDir('takeline-speech-');
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it("works with the official client's audio.speech.create, unchanged", async () => {
    const response = await client.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: SENTENCE, response_format: 'wav' });
    expect(response.headers.get('content-type')).toBe('audio/wav');
    expect(response.headers.get('x-voice')).toBe('festival-hts/slt');
    const wav = decodeWav(Buffer.from(await response.arrayBuffer()));
    expect(wav).toMatchObject({ sampleRate: 24000, channels: 1, sampleFormat: 's16' });
    expect(wav.frames / 24000).toBeGreaterThan(2.5);
    expect(Math.max(...wav.samples.map(Math.abs))).toBeGreaterThan(0.1);
  });

  it('says the words: the recognizer reads back what the default voice spoke', async () => {
    const mp3 = path.join(dir, 'fox.mp3');
    fs.writeFileSync(mp3, Buffer.from(await (await client.audio.speech.create({ model: 'tts-1', voice: 'nova', input: SENTENCE })).arrayBuffer()));
    const heard = await client.audio.transcriptions.create({ file: fs.createReadStream(mp3), model: 'whisper-1', response_format: 'text' });
    expect(wordErrorRate(SENTENCE, String(heard)).wer).toBeLessThan(0.35);
  });

  it('answers every OpenAI format, 24 kHz mono', async () => {
    for (const [format, codec] of [['mp3', 'mp3'], ['opus', 'opus'], ['aac', 'aac'], ['flac', 'flac'], ['wav', 'pcm_s16le']] as const) {
      const res = await speech({ model: 'flite', voice: 'rms', input: 'Format check.', response_format: format });
      expect(res.status, format).toBe(200);
      const file = path.join(dir, `check.${format}`);
      fs.writeFileSync(file, Buffer.from(await res.arrayBuffer()));
      // Opus always decodes at 48 kHz (the 24 kHz input rate is only a header field).
      expect(probe(file)).toMatchObject({ codec, rate: format === 'opus' ? 48000 : 24000, channels: 1 });
    }
    const pcm = Buffer.from(await (await speech({ model: 'flite', voice: 'rms', input: 'Format check.', response_format: 'pcm' })).arrayBuffer());
    expect(pcm.length % 2).toBe(0);
    expect(pcm.length / 2 / 24000).toBeGreaterThan(0.4);
  });

  it('speaks with every installed engine, male and female voices, at any speed', { timeout: 180_000 }, async () => {
    const models = (await (await fetch(`${svc.url}/v1/audio/models`, { headers: auth() })).json()).data.filter((m: { kind: string }) => m.kind === 'tts');
    expect(models.map((m: { id: string }) => m.id)).toEqual(['festival-hts', 'svox-pico', 'festival-diphone', 'flite', 'espeak-ng']);
    const genders = new Set<string>();
    for (const model of models) {
      for (const voice of model.voices) {
        genders.add(voice.gender);
        const res = await speech({ model: model.id, voice: voice.id, input: 'One two three.', response_format: 'pcm' });
        expect(res.status, `${model.id}/${voice.id}`).toBe(200);
        expect((await res.arrayBuffer()).byteLength, `${model.id}/${voice.id}`).toBeGreaterThan(24000);
      }
    }
    expect([...genders].sort()).toEqual(['female', 'male']);
    const seconds = async (model: string, speed: number) =>
      (await (await speech({ model, voice: 'alloy', input: SENTENCE, response_format: 'pcm', speed })).arrayBuffer()).byteLength / 48000;
    for (const model of ['festival-hts', 'festival-diphone', 'espeak-ng']) {
      const normal = await seconds(model, 1);
      expect((await seconds(model, 2)) / normal, model).toBeGreaterThan(0.4);
      expect((await seconds(model, 2)) / normal, model).toBeLessThan(0.65);
      // 0.25 is beyond espeak-ng's own range (80 words a minute): the service stretches the rest.
      expect((await seconds(model, 0.25)) / normal, model).toBeGreaterThan(3);
    }
  });

  it("speaks OpenAI's male names in a male voice and its female names in a female one, by pitch, and says where a model has no such voice", { timeout: 120_000 }, async () => {
    const pitchOf = async (res: Response) => {
      const pcm = Buffer.from(await res.arrayBuffer());
      const samples = new Float32Array(pcm.length / 2);
      for (let i = 0; i < samples.length; i++) samples[i] = pcm.readInt16LE(2 * i) / 32768;
      return speakerPitch([samples], 24000);
    };
    for (const [voice, gender, ref] of [['onyx', 'male', 'festival-diphone/kal'], ['echo', 'male', 'festival-diphone/kal'], ['nova', 'female', 'festival-hts/slt'], ['shimmer', 'female', 'festival-hts/slt']] as const) {
      const res = await speech({ model: 'tts-1', voice, input: SENTENCE, response_format: 'pcm' });
      expect(res.status, voice).toBe(200);
      expect(res.headers.get('x-voice'), voice).toBe(ref);
      expect(await pitchOf(res), voice).toMatchObject({ gender });
    }
    // A model named by id without a voice of that gender: refused in the body, naming the voices that exist.
    const res = await speech({ model: 'festival-hts', voice: 'onyx', input: 'Hi.' });
    expect(res.status).toBe(400);
    const { error } = await res.json();
    expect(error).toMatchObject({ type: 'invalid_request_error', param: 'voice', code: 'invalid_value' });
    expect(error.message).toMatch(/"onyx" is one of OpenAI's male voices, and the model "festival-hts" has no male voice/);
    expect(error.message).toMatch(/festival-diphone\/kal.*flite\/rms/);
    expect((await speech({ model: 'flite', voice: 'onyx', input: 'Hi.', response_format: 'pcm' })).headers.get('x-voice')).toBe('flite/rms');
  });

  it('keeps festival warm: concurrent requests each get their own audio, a client that goes away or a festival that crashes costs nothing', { timeout: 180_000 }, async () => {
    // The HTS voice's processes (the diphone voices keep their own).
    const hts = (pid: number) => {
      try {
        return fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes('TAKELINE_FESTIVAL_VOICE=voice_cmu_us_slt_arctic_hts');
      } catch {
        return false;
      }
    };
    const festivals = () => childProcesses(svc.child.pid!).filter((c) => c.name === 'festival' && c.state !== 'Z' && hts(c.pid));
    const pcm = async (input: string) => {
      const res = await speech({ model: 'festival-hts', voice: 'slt', input, response_format: 'pcm' });
      expect(res.status).toBe(200);
      return Buffer.from(await res.arrayBuffer());
    };
    const texts = ['One little line.', SENTENCE, 'A third line, with a comma.', 'And the fourth one here.'];
    const alone: Buffer[] = [];
    for (const text of texts) alone.push(await pcm(text));
    const together = await Promise.all(texts.map(pcm));
    for (const [i, audio] of together.entries()) expect(audio.equals(alone[i]!), texts[i]).toBe(true);
    // Warm processes, two at most, are kept between requests.
    expect(festivals().length).toBeGreaterThan(0);
    expect(festivals().length).toBeLessThanOrEqual(2);

    // A client that disconnects while a long text is spoken: the service goes on answering, with the same audio.
    const controller = new AbortController();
    const long = Array.from({ length: 8 }, () => SENTENCE).join(' ');
    const gone = fetch(`${svc.url}/v1/audio/speech`, { method: 'POST', headers: auth(), body: JSON.stringify({ model: 'festival-hts', voice: 'slt', input: long, response_format: 'pcm' }), signal: controller.signal })
      .then((res) => res.arrayBuffer())
      .catch((error: Error) => error);
    await new Promise((r) => setTimeout(r, 300));
    controller.abort();
    expect(await gone).toBeInstanceOf(Error);
    expect((await pcm(SENTENCE)).equals(alone[1]!)).toBe(true);
    expect(festivals().length).toBeLessThanOrEqual(2);

    // festival killed from outside (a crash): the next request is spoken by a fresh one, the same.
    for (const f of festivals()) process.kill(f.pid, 'SIGKILL');
    expect((await pcm(SENTENCE)).equals(alone[1]!)).toBe(true);
  });

  it('refuses bad input in OpenAI\'s error envelope and says which parameter', async () => {
    const cases: Array<[unknown, number, string | null, string | null]> = [
      [{ model: 'tts-1', voice: 'alloy' }, 400, 'input', 'missing_required_parameter'],
      [{ model: 'tts-1', voice: 'alloy', input: '   ' }, 400, 'input', 'invalid_value'],
      [{ model: 'tts-1', voice: 'alloy', input: 'x'.repeat(4097) }, 400, 'input', 'invalid_value'],
      [{ model: 'no-such-model', voice: 'alloy', input: 'Hi.' }, 400, 'model', 'model_not_found'],
      [{ model: 'tts-1', voice: 'nobody', input: 'Hi.' }, 400, 'voice', 'invalid_value'],
      [{ model: 'tts-1', voice: 'alloy', input: 'Hi.', speed: 5 }, 400, 'speed', 'invalid_value'],
      [{ model: 'tts-1', voice: 'alloy', input: 'Hi.', response_format: 'ogg' }, 400, 'response_format', 'invalid_value'],
      [{ model: 'tts-1', voice: 'alloy', input: 'Hi.', stream_format: 'sse' }, 400, 'stream_format', 'invalid_value'],
      [{ model: 'tts-1', voice: 'alloy', input: 'Hi.', temperature: 1 }, 400, 'temperature', 'invalid_value'],
    ];
    for (const [body, status, param, code] of cases) {
      const res = await speech(body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(status);
      const { error } = await res.json();
      expect(error, JSON.stringify(body).slice(0, 80)).toMatchObject({ type: 'invalid_request_error', param, code });
    }
    await expect(client.audio.speech.create({ model: 'tts-1', voice: 'nobody', input: 'Hi.' })).rejects.toMatchObject({ status: 400 });
    // Malformed JSON in OpenAI's shape: 400 invalid_value (the /v1/speech/ routes answer FastAPI's 422 json_invalid).
    const malformed = await fetch(`${svc.url}/v1/audio/speech`, { method: 'POST', headers: auth(), body: '{"model": "tts-1",' });
    expect(malformed.status).toBe(400);
    expect((await malformed.json()).error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_value', param: null, message: expect.stringMatching(/^body: JSON decode error/) });
    const unauthorised = await fetch(`${svc.url}/v1/audio/speech`, { method: 'POST', body: '{}', headers: { 'Content-Type': 'application/json' } });
    expect(unauthorised.status).toBe(401);
    expect((await unauthorised.json()).error.type).toBe('authentication_error');
  });

  it('lists voice engines as tts models, and leaves out one that is not installed', async () => {
    const other = await startServiceProcess({ env: { TAKELINE_FESTIVAL: '/nonexistent/festival' } });
    try {
      const headers = { Authorization: `Bearer ${other.key}`, 'Content-Type': 'application/json' };
      const { data } = await (await fetch(`${other.url}/v1/audio/models`, { headers })).json();
      expect(data.map((m: { id: string }) => m.id)).not.toContain('festival-hts');
      const pico = data.find((m: { id: string }) => m.id === 'svox-pico');
      expect(pico).toMatchObject({ kind: 'tts', tier: 'free', supports_cloning: false, supports_diarization: false, default_voice: 'en-US' });
      expect(pico.aliases).toContain('tts-1');
      // Without festival, OpenAI's male names go to the most natural engine left with a male voice.
      const male = await fetch(`${other.url}/v1/audio/speech`, { method: 'POST', headers, body: JSON.stringify({ model: 'tts-1', voice: 'onyx', input: 'Hi.', response_format: 'pcm' }) });
      expect(male.status).toBe(200);
      expect(male.headers.get('x-voice')).toBe('flite/rms');
      const res = await fetch(`${other.url}/v1/audio/speech`, { method: 'POST', headers, body: JSON.stringify({ model: 'festival-hts', voice: 'slt', input: 'Hi.' }) });
      expect(res.status).toBe(404);
      expect((await res.json()).error).toMatchObject({ code: 'model_not_found', param: 'model', message: expect.stringMatching(/apt-get install -y festival/) });
    } finally {
      await other.stop();
    }
  });
});
