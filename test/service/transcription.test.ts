import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI, { toFile } from 'openai';
import { parseSync } from 'subtitle';
import { multipartBody, rawRequest, startServiceProcess, type ServiceProcess } from '../helpers/service';
import { audioDir } from '../helpers/paths';
import { tempDir } from '../helpers/temp';
import { wordErrorRate } from '../../src/service/speech/scoring/wer';
import { encodeWav } from '../../src/service/media/wav';
import { convolve, loadAudio, matchPower, syntheticRoom } from '../../src/service/speech/quality/signals.testutil';

const LJ = 'ljspeech_LJ001-0001.flac';
const reference = (file: string) =>
  fs.readFileSync(path.join(audioDir, 'asr', 'refs.tsv'), 'utf8').split('\n').find((l) => l.startsWith(file))!.split('\t')[2]!;

describe('transcription', { timeout: 240_000 }, () => {
  let svc: ServiceProcess;
  let client: OpenAI;
  let auth: Record<string, string>;
  const tmp = tempDir('takeline-asr-');
  beforeAll(async () => {
    svc = await startServiceProcess();
    auth = { Authorization: `Bearer ${svc.key}` };
    client = new OpenAI({ apiKey: svc.key, baseURL: `${svc.url}/v1`, maxRetries: 0, timeout: 230_000 });
  });
  afterAll(async () => {
    // After many requests the engines are warm (decoders, the diarization thread): they stop with the service.
    if (svc) expect(await svc.stop()).toBe(0);
  });

  const lj = () => fs.createReadStream(path.join(audioDir, 'asr', LJ));

  it('answers the official openai client in json, with text close to the reference', async () => {
    const { data, response } = await client.audio.transcriptions.create({ file: lj(), model: 'whisper-1' }).withResponse();
    expect(Object.keys(data).sort()).toEqual(['text', 'usage']);
    expect((data as unknown as { usage: unknown }).usage).toEqual({ type: 'duration', seconds: 10 });
    expect(wordErrorRate(reference(LJ), data.text).wer).toBeLessThan(0.5);
    // Written as text (speech/text): a capital first, a full stop last.
    expect(data.text).toMatch(/^[A-Z][^]*\.$/);
    const sessionId = response.headers.get('x-session-id')!;
    const session = await (await fetch(`${svc.url}/v1/speech/transcriptions/${sessionId}`, { headers: auth })).json();
    expect(session.status).toBe('complete');
    expect(session.transcript.text).toBe(data.text);
    expect(session.project.key).toBe('default');
  });

  it("writes the project's vocabulary: names the dictionary lacks are recognised and spelled as given", async () => {
    const project = 'printing-history';
    await fetch(`${svc.url}/v1/speech/projects`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ key: project, name: 'Printing history' }),
    });
    const put = await fetch(`${svc.url}/v1/speech/projects/${project}/vocabulary`, {
      method: 'PUT',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ terms: ['Sweynheim', 'Pannartz', 'Subiaco'] }),
    });
    expect(put.status).toBe(200);
    const file = 'ljspeech_LJ001-0031.flac'; // "In fourteen sixty-five Sweynheim and Pannartz began printing in the monastery of Subiaco near Rome,"
    const transcribe = async (projectKey: string) => {
      const { body, contentType } = multipartBody([
        { name: 'model', value: 'whisper-1' },
        { name: 'project_key', value: projectKey },
        { name: 'file', file: fs.readFileSync(path.join(audioDir, 'asr', file)), filename: file },
      ]);
      const res = await rawRequest(`${svc.url}/v1/audio/transcriptions`, { method: 'POST', headers: { ...auth, 'Content-Type': contentType }, body });
      expect(res.status).toBe(200);
      return res.json().text as string;
    };
    const plain = await transcribe('default');
    const withVocabulary = await transcribe(project);
    expect(plain).not.toMatch(/sweynheim|pannartz/i);
    expect(withVocabulary).toMatch(/\bSweynheim\b/);
    expect(withVocabulary).toMatch(/\bPannartz\b/);
    expect(wordErrorRate(reference(file), withVocabulary).wer).toBeLessThan(wordErrorRate(reference(file), plain).wer);
  });

  it('honours speaker-count hints and refuses contradictory ones', async () => {
    const sample = fs.readFileSync(path.join(audioDir, 'diarization', 'sample.flac')); // a two-party call
    const post = (fields: Array<{ name: string; value: string }>) => {
      const { body, contentType } = multipartBody([
        { name: 'model', value: 'whisper-1' },
        { name: 'response_format', value: 'diarized_json' },
        ...fields,
        { name: 'file', file: sample, filename: 'sample.flac' },
      ]);
      return rawRequest(`${svc.url}/v1/audio/transcriptions`, { method: 'POST', headers: { ...auth, 'Content-Type': contentType }, body });
    };
    const one = await post([{ name: 'max_speakers', value: '1' }]);
    expect(one.status).toBe(200);
    expect(new Set(one.json().segments.map((s: { speaker: string }) => s.speaker))).toEqual(new Set(['S1']));
    for (const [fields, param] of [
      [[{ name: 'min_speakers', value: '3' }, { name: 'max_speakers', value: '2' }], 'min_speakers'],
      [[{ name: 'max_speakers', value: '0' }], 'max_speakers'],
      [[{ name: 'min_speakers', value: '1.5' }], 'min_speakers'],
    ] as const) {
      const res = await post([...fields]);
      expect(res.status).toBe(400);
      expect(res.json().error).toMatchObject({ type: 'invalid_request_error', param });
    }
    // A huge number breaks only the documented bound: one message, never the internal safe-integer bound.
    for (const value of ['1e300', '99999999999999999999']) {
      const huge = await post([{ name: 'max_speakers', value }]);
      expect(huge.status).toBe(400);
      expect(huge.json().error).toMatchObject({ param: 'max_speakers', code: 'invalid_value', message: 'max_speakers: Input should be less than or equal to 32' });
    }
    const { body, contentType } = multipartBody([
      { name: 'project_key', value: 'hints' },
      { name: 'min_speakers', value: '4' },
      { name: 'max_speakers', value: '2' },
      { name: 'file', file: sample, filename: 'sample.flac' },
    ]);
    const upload = await rawRequest(`${svc.url}/v1/speech/transcriptions`, { method: 'POST', headers: { ...auth, 'Content-Type': contentType }, body });
    expect(upload.status).toBe(422);
    expect(upload.json().detail).toEqual([expect.objectContaining({ loc: ['body', 'min_speakers'], type: 'value_error' })]);
    const huge = multipartBody([
      { name: 'project_key', value: 'hints' },
      { name: 'max_speakers', value: '99999999999999999999' },
      { name: 'file', file: sample, filename: 'sample.flac' },
    ]);
    const hugeUpload = await rawRequest(`${svc.url}/v1/speech/transcriptions`, { method: 'POST', headers: { ...auth, 'Content-Type': huge.contentType }, body: huge.body });
    expect(hugeUpload.status).toBe(422);
    expect(hugeUpload.json().detail).toEqual([
      expect.objectContaining({ loc: ['body', 'max_speakers'], type: 'less_than_equal', msg: 'Input should be less than or equal to 32', ctx: { le: 32 } }),
    ]);
    const page = await rawRequest(`${svc.url}/v1/speech/transcriptions?limit=1e300`, { headers: auth });
    expect(page.status).toBe(422);
    expect(page.json().detail).toEqual([expect.objectContaining({ loc: ['query', 'limit'], msg: 'Input should be less than or equal to 100' })]);
  });

  it('serves text, srt and vtt that an independent subtitle parser reads', async () => {
    const text = await client.audio.transcriptions.create({ file: lj(), model: 'whisper-1', response_format: 'text' });
    expect(typeof text).toBe('string');
    expect(String(text).trim().split(/\s+/).length).toBeGreaterThan(10);
    const srt = String(await client.audio.transcriptions.create({ file: lj(), model: 'whisper-1', response_format: 'srt' }));
    const cues = parseSync(srt).filter((n) => n.type === 'cue');
    expect(cues.length).toBeGreaterThan(0);
    expect((cues[0]!.data as { text: string }).text).toMatch(/^[A-Z]/);
    expect((cues.at(-1)!.data as { text: string }).text).toMatch(/\.$/);
    for (const cue of cues) expect((cue.data as { end: number }).end).toBeGreaterThan((cue.data as { start: number }).start);
    const vtt = String(await client.audio.transcriptions.create({ file: lj(), model: 'whisper-1', response_format: 'vtt' }));
    expect(vtt.startsWith('WEBVTT')).toBe(true);
    const vttCues = parseSync(vtt).filter((n) => n.type === 'cue');
    expect(vttCues.length).toBe(cues.length);
    expect((vttCues[0]!.data as { text: string }).text).toMatch(/^<v S\d+>/);
  });

  it('serves verbose_json with segments and words when asked', async () => {
    const data = (await client.audio.transcriptions.create({
      file: lj(),
      model: 'gpt-4o-transcribe',
      response_format: 'verbose_json',
      timestamp_granularities: ['word', 'segment'],
    })) as unknown as Record<string, any>;
    expect(data).toMatchObject({ task: 'transcribe', language: 'english', duration: expect.closeTo(9.655, 1), session_id: expect.any(String) });
    expect(data.segments.length).toBeGreaterThan(0);
    for (const s of data.segments) {
      expect(Object.keys(s).sort()).toEqual(
        ['avg_logprob', 'compression_ratio', 'end', 'id', 'no_speech_prob', 'seek', 'speaker', 'start', 'temperature', 'text', 'tokens'].sort(),
      );
      expect(s.end).toBeGreaterThan(s.start);
    }
    expect(data.words.length).toBeGreaterThan(10);
    for (let i = 1; i < data.words.length; i++) expect(data.words[i].start).toBeGreaterThanOrEqual(data.words[i - 1].start);
    expect(data.words.map((w: { word: string }) => w.word).join(' ')).toBe(data.text);
    const wordsOnly = (await client.audio.transcriptions.create({
      file: lj(),
      model: 'whisper-1',
      response_format: 'verbose_json',
      timestamp_granularities: ['word'],
    })) as unknown as Record<string, unknown>;
    expect(wordsOnly.words).toBeDefined();
    expect(wordsOnly.segments).toBeUndefined();
  });

  it('serves diarized_json in OpenAI shape on a two-party call', async () => {
    const data = (await client.audio.transcriptions.create({
      file: fs.createReadStream(path.join(audioDir, 'diarization', 'sample.flac')),
      model: 'gpt-4o-transcribe-diarize',
      response_format: 'diarized_json' as 'json',
    })) as unknown as Record<string, any>;
    expect(data.segments.length).toBeGreaterThan(1);
    for (const s of data.segments) {
      expect(s).toEqual({ type: 'transcript.text.segment', id: expect.stringMatching(/^seg_\d+$/), start: expect.any(Number), end: expect.any(Number), speaker: expect.stringMatching(/^S\d+$/), text: expect.any(String) });
    }
    expect(new Set(data.segments.map((s: { speaker: string }) => s.speaker)).size).toBeGreaterThan(1);
    // Segments span their speakers' turns, in order and without overlapping one another.
    data.segments.forEach((s: { start: number; end: number }, i: number) => {
      expect(s.end).toBeGreaterThan(s.start);
      if (i > 0) expect(s.start).toBeGreaterThanOrEqual(data.segments[i - 1].end);
    });
  });

  it('streams deltas as segments decode and a done event whose text is what was sent', async () => {
    const stream = await client.audio.transcriptions.create({
      file: lj(),
      model: 'whisper-1',
      stream: true,
    });
    let text = '';
    let done: { text: string; usage?: unknown } | null = null;
    let deltas = 0;
    for await (const event of stream) {
      if (event.type === 'transcript.text.delta') {
        text += event.delta;
        deltas++;
      }
      if (event.type === 'transcript.text.done') done = event;
    }
    expect(deltas).toBeGreaterThan(0);
    expect(done).not.toBeNull();
    expect(done!.text).toBe(text);
    expect(done!.usage).toEqual({ type: 'duration', seconds: 10 });
  });

  it('refuses bad input in the OpenAI envelope', async () => {
    const file = await toFile(fs.readFileSync(path.join(audioDir, 'asr', LJ)), 'a.flac');
    const cases: Array<[Record<string, unknown>, number, string | null]> = [
      [{ model: 'no-such-model' }, 400, 'model'],
      [{ model: 'whisper-1', language: 'de' }, 400, 'language'],
      [{ model: 'whisper-1', temperature: 2 }, 400, 'temperature'],
      [{ model: 'whisper-1', response_format: 'xml' }, 400, 'response_format'],
      [{ model: 'whisper-1', response_format: 'json', timestamp_granularities: ['word'] }, 400, 'timestamp_granularities'],
    ];
    for (const [params, status, param] of cases) {
      const error = await client.audio.transcriptions.create({ file, ...params } as never).then(
        () => null,
        (e) => e,
      );
      expect(error, JSON.stringify(params)).toBeInstanceOf(OpenAI.APIError);
      expect(error.status).toBe(status);
      expect(error.error).toMatchObject({ type: 'invalid_request_error', param });
    }
    const notAudio = await client.audio.transcriptions
      .create({ file: await toFile(Buffer.from('hello, not audio'), 'x.wav'), model: 'whisper-1' })
      .then(() => null, (e) => e);
    expect(notAudio.status).toBe(415);
    const flac = fs.readFileSync(path.join(audioDir, 'asr', LJ));
    const chunking = async (value: string) => {
      const form = multipartBody([{ name: 'model', value: 'whisper-1' }, { name: 'chunking_strategy', value }, { name: 'file', file: flac, filename: 'a.flac' }]);
      return rawRequest(`${svc.url}/v1/audio/transcriptions`, { method: 'POST', headers: { ...auth, 'Content-Type': form.contentType }, body: form.body });
    };
    const badChunking = await chunking('{"type":"server_vad","threshold":2}');
    expect(badChunking.status).toBe(400);
    expect(badChunking.json().error.param).toBe('chunking_strategy.threshold');
    const vad = await chunking('{"type":"server_vad","silence_duration_ms":800,"prefix_padding_ms":200,"threshold":0.6}');
    expect(vad.status).toBe(200);
    expect(vad.json().text.split(' ').length).toBeGreaterThan(10);
    const { body, contentType } = multipartBody([{ name: 'model', value: 'whisper-1' }]);
    const missing = await rawRequest(`${svc.url}/v1/audio/transcriptions`, { method: 'POST', headers: { ...auth, 'Content-Type': contentType }, body });
    expect(missing.status).toBe(400);
    expect(missing.json().error).toMatchObject({ param: 'file', code: 'missing_required_parameter' });
  });

  it('denoises a noisy recording before PocketSphinx hears it, and says so in its log', async () => {
    const noisy = path.join(tmp, 'noisy.wav');
    // White noise about 10 dB under the reading's speech (seeded, so the test hears the same noise every run).
    const made = spawnSync('ffmpeg', [
      '-v', 'error', '-i', path.join(audioDir, 'asr', LJ), '-f', 'lavfi', '-i', 'anoisesrc=c=white:a=0.02:seed=7:r=16000',
      '-filter_complex', 'amix=inputs=2:duration=first:normalize=0', '-ac', '1', '-ar', '16000', noisy,
    ]);
    expect(made.status).toBe(0);
    const data = await client.audio.transcriptions.create({ file: fs.createReadStream(noisy), model: 'whisper-1' });
    expect(svc.output()).toMatch(/denoised \d+ chunk\(s\) whose speech was under 25 dB SNR/);
    // One clip says little about accuracy (bench/asr, "Background noise", measures it); the words must survive.
    expect(wordErrorRate(reference(LJ), data.text).wer).toBeLessThan(0.3);
  });

  it('dereverberates a reading made in a room before PocketSphinx hears it, and says so in its log', async () => {
    const room = path.join(tmp, 'room.wav');
    // The reading in a constructed room: reverberation time 0.6 s, as much energy in the tail as in the direct sound.
    const dry = await loadAudio(`asr/${LJ}`);
    const wet = matchPower(convolve(dry, syntheticRoom(0.6, 0)), dry);
    fs.writeFileSync(room, encodeWav(wet, { sampleRate: 16_000, channels: 1, sampleFormat: 'f32' }));
    const data = await client.audio.transcriptions.create({ file: fs.createReadStream(room), model: 'whisper-1' });
    expect(svc.output()).toMatch(/dereverberated \d+ chunk\(s\) that held late reverberation/);
    // One clip says little about accuracy (bench/asr, "Reverberation", measures it); the words must survive (this
    // clip: 18.5 % WER dereverberated, 40.7 % as it is).
    expect(wordErrorRate(reference(LJ), data.text).wer).toBeLessThan(0.3);
  });

  it('ends a recording without speech or without audio as an empty transcript, not an error', async () => {
    const silence = path.join(tmp, 'silence.wav');
    const video = path.join(tmp, 'mute.mp4');
    spawnSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'anullsrc=r=16000:cl=mono', '-t', '3', silence]);
    spawnSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'testsrc=size=64x64:rate=25:duration=2', '-c:v', 'mpeg4', video]);
    for (const file of [silence, video]) {
      const data = await client.audio.transcriptions.create({ file: fs.createReadStream(file), model: 'whisper-1', response_format: 'verbose_json' });
      expect(data.text).toBe('');
      expect((data as unknown as { segments: unknown[] }).segments).toEqual([]);
    }
  });

  it('runs uploads as durable jobs to a transcript with speakers and words, and matches project speakers', async () => {
    const upload = async () => {
      const { body, contentType } = multipartBody([
        { name: 'project_key', value: 'voices' },
        { name: 'file', file: fs.readFileSync(path.join(audioDir, 'asr', LJ)), filename: LJ },
      ]);
      const res = await rawRequest(`${svc.url}/v1/speech/transcriptions`, { method: 'POST', headers: { ...auth, 'Content-Type': contentType }, body });
      expect(res.status).toBe(201);
      return res.json().id as string;
    };
    const waitComplete = async (id: string) => {
      const seen = new Set<string>();
      for (let i = 0; i < 240; i++) {
        const session = await (await fetch(`${svc.url}/v1/speech/transcriptions/${id}`, { headers: auth })).json();
        seen.add(session.status);
        if (session.status === 'complete' || session.status === 'failed') return { session, seen };
        await new Promise((r) => setTimeout(r, 250));
      }
      throw new Error('timed out');
    };
    const first = await waitComplete(await upload());
    expect(first.session.status).toBe('complete');
    expect(first.session.progress).toBe(1);
    const transcript = first.session.transcript;
    expect(transcript.segments.length).toBeGreaterThan(0);
    for (const segment of transcript.segments) {
      expect(segment.speaker).toMatch(/^S\d+$/);
      expect(segment.words.length).toBeGreaterThan(0);
      for (const word of segment.words) expect(word).toEqual({ word: expect.any(String), start: expect.any(Number), end: expect.any(Number), confidence: expect.any(Number), speaker: segment.speaker });
    }
    const map1 = first.session.speaker_map;
    expect(Object.keys(map1).sort()).toEqual([...transcript.speakers].sort());
    for (const entry of Object.values(map1) as Array<{ matched: boolean }>) expect(entry.matched).toBe(false);

    // The same recording again: every speaker is matched to the project speaker it became the first time.
    const second = await waitComplete(await upload());
    const map2 = second.session.speaker_map;
    for (const [label, entry] of Object.entries(map2) as Array<[string, { speaker_id: string; matched: boolean; similarity: number }]>) {
      expect(entry.matched).toBe(true);
      expect(entry.similarity).toBeGreaterThan(0.99);
      expect(entry.speaker_id).toBe(map1[label].speaker_id);
    }
    const project = await (await fetch(`${svc.url}/v1/speech/projects/voices`, { headers: auth })).json();
    expect(project.speakers.length).toBe(Object.keys(map1).length);
    for (const speaker of project.speakers) expect(speaker).toMatchObject({ clip_count: 2, label: expect.stringMatching(/^P\d+$/), evidence_seconds: expect.any(Number) });
    const renamed = await rawRequest(`${svc.url}/v1/speech/projects/voices/speakers/${project.speakers[0].id}`, {
      method: 'PATCH',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Narrator' }),
    });
    expect(renamed.json()).toMatchObject({ id: project.speakers[0].id, name: 'Narrator' });
    const srt = await (await fetch(`${svc.url}/v1/speech/transcriptions/${second.session.id}/export?format=srt`, { headers: auth })).text();
    expect(parseSync(srt).filter((n) => n.type === 'cue').length).toBeGreaterThan(0);
  });
});

describe('the analysis document of a /v1/audio/transcriptions session', () => {
  it('is queued with the transcript (unavailable without speech), with the real speaker map and project', async () => {
    const svc = await startServiceProcess();
    try {
      const auth = { Authorization: `Bearer ${svc.key}` };
      const client = new OpenAI({ apiKey: svc.key, baseURL: `${svc.url}/v1`, maxRetries: 0, timeout: 230_000 });
      const { response } = await client.audio.transcriptions
        .create({ file: fs.createReadStream(path.join(audioDir, 'asr', LJ)), model: 'whisper-1', project_key: 'docs' } as never)
        .withResponse();
      const id = response.headers.get('x-session-id')!;
      const doc = await (await fetch(`${svc.url}/v1/speech/transcriptions/${id}/intelligence`, { headers: auth })).json();
      expect(doc).toMatchObject({ id, intelligence: { status: expect.stringMatching(/^(queued|running|complete)$/), run_id: expect.any(String) }, project: { key: 'docs' } });
      expect(Object.keys(doc.speaker_map).length).toBeGreaterThan(0);
      expect(doc.project.speakers.length).toBe(Object.keys(doc.speaker_map).length);
      const silence = path.join(tempDir('takeline-silence-'), 'silence.wav');
      spawnSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'anullsrc=r=16000:cl=mono', '-t', '2', silence]);
      const quiet = await client.audio.transcriptions.create({ file: fs.createReadStream(silence), model: 'whisper-1' }).withResponse();
      const quietDoc = async () =>
        (await (await fetch(`${svc.url}/v1/speech/transcriptions/${quiet.response.headers.get('x-session-id')}/intelligence`, { headers: auth })).json()) as {
          intelligence: { status: string; error: string | null };
        };
      let none = await quietDoc();
      for (let i = 0; i < 200 && (none.intelligence.status === 'queued' || none.intelligence.status === 'running'); i++) {
        await new Promise((r) => setTimeout(r, 250));
        none = await quietDoc();
      }
      expect(none.intelligence).toMatchObject({ status: 'unavailable', error: expect.stringMatching(/no speech/) });
      const revoice = await fetch(`${svc.url}/v1/speech/transcriptions/${id}/dubs/d1/revoice`, { method: 'POST', headers: auth });
      expect(revoice.status).toBe(404);
      const badDub = await fetch(`${svc.url}/v1/speech/transcriptions/${id}/dubs/..%2f/revoice`, { method: 'POST', headers: auth });
      expect(badDub.status).toBe(422);
    } finally {
      await svc.stop();
    }
  }, 240_000);
});
