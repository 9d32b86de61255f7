import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validate } from '@readme/openapi-parser';
import { startServiceProcess, type ServiceProcess } from '../helpers/service';
import { tempDir } from '../helpers/temp';
import { audioDir } from '../helpers/paths';
import { createSession, download, dubMaster, LONG_FILE, referenceLines, uploadDub, wavBytes } from '../helpers/dubs';

describe('dubs, lines, voices and revisions', () => {
  let svc: ServiceProcess;
  let dir: string;
  let sessionId: string;
  let master: Buffer;
  const lines = referenceLines(60);
  const api = (p: string, init: RequestInit = {}) =>
    fetch(`${svc.url}/v1/speech/transcriptions/${sessionId}/dubs${p}`, {
      ...init,
      headers: { Authorization: `Bearer ${svc.key}`, ...(init.body ? { 'Content-Type': 'application/json' } : {}), ...init.headers },
    });
  const patch = (p: string, body: unknown) => api(p, { method: 'PATCH', body: JSON.stringify(body) });
  const dubFolders = () => {
    const folder = path.join(svc.dataDir, 'recordings', sessionId, 'dubs');
    return fs.existsSync(folder) ? fs.readdirSync(folder).sort() : [];
  };

  beforeAll(async () => {
    svc = await startServiceProcess();
    dir = tempDir('takeline-dubs-');
    sessionId = await createSession(svc);
    master = fs.readFileSync(dubMaster(dir, 60));
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it('files a dub with its lines: revision 1 is the upload, sample for sample, at its rate, channels and depth', async () => {
    const res = await uploadDub(svc, sessionId, [
      { name: 'file', file: master, filename: 'episode-dub.wav' },
      { name: 'lines', value: JSON.stringify(lines) },
      { name: 'voices', value: JSON.stringify({ S2: 'flite/rms' }) },
    ]);
    expect(res.status, res.text()).toBe(201);
    const dub = res.json();
    expect(res.headers.location).toBe(`/v1/speech/transcriptions/${sessionId}/dubs/${dub.id}`);
    expect(dub).toMatchObject({
      session_id: sessionId,
      name: 'episode-dub.wav',
      status: 'ready',
      format: { sample_rate: 48000, channels: 2, sample_format: 's24', frames: 2_880_000, duration: 60 },
      background: false,
      voices: { S2: 'flite/rms' },
      speakers: ['S1', 'S2'],
      current_revision: 1,
      revision_count: 1,
      lines: { total: lines.length, corrected: 0, pending: 0 },
      active_revoice: null,
    });
    const { data: revisions } = await (await api(`/${dub.id}/revisions`)).json();
    expect(revisions).toMatchObject([{ number: 1, base: null, source: 'upload', current: true, lines_revoiced: [] }]);
    const stored = wavBytes(await download(revisions[0].audio.url));
    const uploaded = wavBytes(master);
    expect(stored.layout).toMatchObject({ sampleRate: 48000, channels: 2, sampleFormat: 's24', frames: uploaded.layout.frames });
    expect(stored.bytes.subarray(stored.layout.dataOffset).equals(uploaded.bytes.subarray(uploaded.layout.dataOffset))).toBe(true);
    // The signed address plays in an <audio> element: ranges, and a download variant.
    const range = await fetch(revisions[0].audio.url, { headers: { Range: 'bytes=0-99' } });
    expect(range.status).toBe(206);
    expect((await range.arrayBuffer()).byteLength).toBe(100);
    const attachment = await fetch(revisions[0].audio.download_url, { method: 'HEAD' });
    expect(attachment.headers.get('content-disposition')).toMatch(/attachment; filename="?episode-dub-r1\.wav"?/);
    expect((await fetch(revisions[0].audio.url.replace(/signature=[^&]+/, 'signature=forged'))).status).toBe(403);

    const { data: all } = await (await api('')).json();
    expect(all.map((d: { id: string }) => d.id)).toEqual([dub.id]);
    const { data: read } = await (await api(`/${dub.id}/lines`)).json();
    expect(read).toHaveLength(lines.length);
    expect(read[1]).toMatchObject({
      id: 2,
      speaker: 'S2',
      start: lines[1]!.start,
      end: lines[1]!.end,
      text: lines[1]!.text,
      original_text: lines[1]!.text,
      corrected: false,
      voice: null,
      effective_voice: 'flite/rms',
      state: 'original',
      needs_revoice: false,
      render: null,
    });
    expect(read[0].effective_voice).toBe('festival-hts/slt');
  });

  it('corrects a line, keeps the original beside it, and changes nothing on bad input', async () => {
    const { data } = await (await api('')).json();
    const dubId = data[0].id;
    const before = await (await api(`/${dubId}/lines/3`)).json();
    const corrected = await patch(`/${dubId}/lines/3`, { text: '  produced the block books, the forerunners of the printed book.  ' });
    expect(corrected.status).toBe(200);
    expect(await corrected.json()).toMatchObject({
      id: 3,
      text: 'produced the block books, the forerunners of the printed book.',
      original_text: before.original_text,
      corrected: true,
      state: 'corrected',
      needs_revoice: true,
    });
    const bad: Array<[unknown, number, string, Array<string | number>]> = [
      [{ text: '   ' }, 422, 'string_too_short', ['body', 'text']],
      [{ text: 'x'.repeat(1001) }, 422, 'string_too_long', ['body', 'text']],
      [{ voice: 'flite/nobody' }, 422, 'voice_not_found', ['body', 'voice']],
      [{ voice: 'no-engine/slt' }, 422, 'voice_not_found', ['body', 'voice']],
      [{ voice: 'slt' }, 422, 'string_pattern_mismatch', ['body', 'voice']],
      [{ start: lines[1]!.start - 0.5 }, 422, 'line_overlap', ['body', 'start']],
      [{ end: lines[3]!.start + 0.5 }, 422, 'line_overlap', ['body', 'end']],
      [{ start: 22, end: 21 }, 422, 'line_order', ['body', 'end']],
      [{ speaker: 'S9' }, 422, 'extra_forbidden', ['body', 'speaker']],
      [{}, 422, 'missing', ['body']],
    ];
    for (const [body, status, type, loc] of bad) {
      const res = await patch(`/${dubId}/lines/3`, body);
      expect(res.status, JSON.stringify(body).slice(0, 60)).toBe(status);
      expect((await res.json()).detail[0], JSON.stringify(body).slice(0, 60)).toMatchObject({ type, loc });
    }
    const after = await (await api(`/${dubId}/lines/3`)).json();
    expect(after).toMatchObject({ text: 'produced the block books, the forerunners of the printed book.', start: before.start, end: before.end, voice: null });
    expect((await patch(`/${dubId}/lines/99`, { text: 'Hi.' })).status).toBe(404);
    expect((await patch(`/${dubId}/lines/abc`, { text: 'Hi.' })).status).toBe(404);

    // Timing moves within the neighbours; a voice of its own; back to its speaker's.
    const moved = await (await patch(`/${dubId}/lines/3`, { start: before.start + 0.1, end: before.end - 0.1, voice: 'svox-pico/en-GB' })).json();
    expect(moved).toMatchObject({ start: before.start + 0.1, end: before.end - 0.1, original_start: before.start, voice: 'svox-pico/en-GB', effective_voice: 'svox-pico/en-GB' });
    expect(await (await patch(`/${dubId}/lines/3`, { start: before.start, end: before.end, voice: null })).json()).toMatchObject({ voice: null, effective_voice: 'festival-hts/slt' });
    expect((await (await api(`/${dubId}`)).json()).lines).toEqual({ total: lines.length, corrected: 1, pending: 1 });
  });

  it('assigns voices per speaker and refuses speakers and voices that do not exist', async () => {
    const { data } = await (await api('')).json();
    const dubId = data[0].id;
    const updated = await patch(`/${dubId}`, { name: 'Episode 104 (dub)', voices: { S1: 'svox-pico/en-US', S2: null }, default_voice: 'flite/slt' });
    expect(updated.status).toBe(200);
    expect(await updated.json()).toMatchObject({ name: 'Episode 104 (dub)', voices: { S1: 'svox-pico/en-US' }, default_voice: 'flite/slt' });
    const { data: read } = await (await api(`/${dubId}/lines`)).json();
    expect(read[0].effective_voice).toBe('svox-pico/en-US');
    expect(read[1].effective_voice).toBe('flite/slt');
    for (const [body, type] of [
      [{ voices: { S7: 'flite/rms' } }, 'unknown_speaker'],
      [{ voices: { S1: 'flite/zz' } }, 'voice_not_found'],
      [{ default_voice: 'espeak-ng/klingon' }, 'voice_not_found'],
      [{ name: '' }, 'string_too_short'],
    ] as const) {
      const res = await patch(`/${dubId}`, body);
      expect(res.status).toBe(422);
      expect((await res.json()).detail[0].type).toBe(type);
    }
    expect(await (await api(`/${dubId}`)).json()).toMatchObject({ name: 'Episode 104 (dub)', voices: { S1: 'svox-pico/en-US' }, default_voice: 'flite/slt' });
    await patch(`/${dubId}`, { voices: { S1: null }, default_voice: null });
  });

  it("gives each speaker without a voice a default of the gender the speaker's own pitch suggests", { timeout: 120_000 }, async () => {
    // A woman (LJSpeech) and a man (the amateur reader) reading in turn, one after the other in the long file.
    const from = 147.8;
    const rows = fs.readFileSync(path.join(audioDir, 'long', 'read_speech_concat.segments.tsv'), 'utf8').trim().split('\n').slice(1).map((r) => r.split('\t'));
    const turns = rows
      .filter(([start, end]) => Number(start) >= from && Number(end) <= 201.1)
      .map(([start, end, source, text]) => ({ speaker: source!.startsWith('amateur') ? 'HIM' : 'HER', start: Number(start) - from, end: Number(end) - from, text: text! }));
    expect(new Set(turns.map((t) => t.speaker))).toEqual(new Set(['HER', 'HIM']));
    const file = path.join(dir, 'two-readers.wav');
    execFileSync('ffmpeg', ['-v', 'error', '-y', '-ss', String(from), '-t', String(201.1 - from), '-i', LONG_FILE, '-ar', '44100', '-ac', '2', '-c:a', 'pcm_s16le', file]);
    const res = await uploadDub(svc, sessionId, [
      { name: 'file', file: fs.readFileSync(file), filename: 'two-readers.wav' },
      { name: 'lines', value: JSON.stringify(turns) },
    ]);
    expect(res.status, res.text()).toBe(201);
    const dub = res.json();
    expect(dub.speaker_pitch).toEqual({
      HER: { gender: 'female', median_f0: expect.any(Number), voiced_seconds: expect.any(Number) },
      HIM: { gender: 'male', median_f0: expect.any(Number), voiced_seconds: expect.any(Number) },
    });
    expect(dub.speaker_pitch.HER.voiced_seconds).toBeGreaterThan(2);
    const voices = async () => {
      const { data } = await (await api(`/${dub.id}/lines`)).json();
      return Object.fromEntries(data.map((l: { speaker: string; effective_voice: string }) => [l.speaker, l.effective_voice]));
    };
    expect(await voices()).toEqual({ HER: 'festival-hts/slt', HIM: 'festival-diphone/kal' });
    // A voice chosen for the speaker or the dub comes first.
    await patch(`/${dub.id}`, { voices: { HIM: 'flite/awb' } });
    expect(await voices()).toEqual({ HER: 'festival-hts/slt', HIM: 'flite/awb' });
    await patch(`/${dub.id}`, { voices: { HIM: null }, default_voice: 'flite/rms' });
    expect(await voices()).toEqual({ HER: 'flite/rms', HIM: 'flite/rms' });
    expect((await api(`/${dub.id}`, { method: 'DELETE' })).status).toBe(204);
  });

  it('refuses bad uploads with the validation shape and keeps nothing of them', async () => {
    const before = dubFolders();
    const file = { name: 'file', file: master.subarray(0, 48000 * 6 * 10 + 68), filename: 'short.wav' };
    const cases: Array<[Array<{ name: string; value?: string; file?: Buffer; filename?: string }>, number, string | null, Array<string | number> | null]> = [
      [[{ name: 'lines', value: '[]' }], 422, 'missing', ['body', 'file']],
      [[file, { name: 'lines', value: '[{"start": 0,' }], 422, 'json_invalid', ['body', 'lines']],
      [[file, { name: 'lines', value: '[]' }], 422, 'too_short', ['body', 'lines']],
      [[file, { name: 'lines', value: JSON.stringify([{ start: 0, end: 2, text: 'A.' }, { start: 1, end: 3, text: 'B.' }]) }], 422, 'line_overlap', ['body', 'lines', 1, 'start']],
      [[file, { name: 'lines', value: JSON.stringify([{ start: 0, end: 20, text: 'A.' }]) }], 422, 'line_outside_dub', ['body', 'lines', 0, 'end']],
      [[file, { name: 'lines', value: JSON.stringify([{ start: 0, end: 2, text: '' }]) }], 422, 'string_too_short', ['body', 'lines', 0, 'text']],
      [[file, { name: 'lines', value: JSON.stringify([{ start: 0, end: 2, text: 'x'.repeat(1001) }]) }], 422, 'string_too_long', ['body', 'lines', 0, 'text']],
      [[file, { name: 'lines', value: JSON.stringify([{ start: 0, end: 2, text: 'A.', voice: 'flite/nobody' }]) }], 422, 'voice_not_found', ['body', 'lines', 0, 'voice']],
      [[file, { name: 'voices', value: JSON.stringify({ S1: 'espeak-ng/xx' }) }], 422, 'voice_not_found', ['body', 'voices', 'S1']],
      [[{ name: 'file', file: Buffer.from('not audio at all'), filename: 'notes.txt' }, { name: 'lines', value: JSON.stringify([{ start: 0, end: 2, text: 'A.' }]) }], 415, null, null],
      [[file, { name: 'background', file: Buffer.from('noise?'), filename: 'bg.wav' }, { name: 'lines', value: JSON.stringify([{ start: 0, end: 2, text: 'A.' }]) }], 415, null, null],
    ];
    for (const [parts, status, type, loc] of cases) {
      const res = await uploadDub(svc, sessionId, parts);
      expect(res.status, `${type}: ${res.text()}`).toBe(status);
      const body = res.json();
      if (type) expect(body.detail[0], type).toMatchObject({ type, loc });
      else expect(typeof body.detail).toBe('string');
    }
    expect(dubFolders()).toEqual(before);
    expect(fs.readdirSync(path.join(svc.dataDir, 'uploads'))).toEqual([]);
    expect((await (await api('')).json()).data).toHaveLength(1);
  });

  it('answers 404 for unknown sessions, dubs, revisions and revoices, 422 for malformed ids', async () => {
    const { data } = await (await api('')).json();
    const dubId = data[0].id;
    const unknown = '00000000-0000-4000-8000-000000000000';
    expect((await api(`/${unknown}`)).status).toBe(404);
    expect((await api(`/${dubId}/revisions/7`)).status).toBe(404);
    expect((await api(`/${dubId}/revisions/7/restore`, { method: 'POST' })).status).toBe(404);
    expect((await api(`/${dubId}/revoices/${unknown}`)).status).toBe(404);
    expect((await api(`/${unknown}/revoice`, { method: 'POST' })).status).toBe(404);
    // Any well-formed id the service did not assign is not found; a malformed one is invalid input.
    expect((await api('/d1/revoice', { method: 'POST' })).status).toBe(404);
    const malformed = await api('/bad.id/revoice', { method: 'POST' });
    expect(malformed.status).toBe(422);
    expect((await malformed.json()).detail[0]).toMatchObject({ loc: ['path', 'dub_id'] });
    const noSession = await fetch(`${svc.url}/v1/speech/transcriptions/${unknown}/dubs/${dubId}/revoice`, { method: 'POST', headers: { Authorization: `Bearer ${svc.key}` } });
    expect(noSession.status).toBe(404);
    expect(await noSession.json()).toEqual({ detail: 'Transcription session not found.' });
  });

  it('derives lines by transcribing a dub uploaded without them', { timeout: 300_000 }, async () => {
    const res = await uploadDub(svc, sessionId, [{ name: 'file', file: fs.readFileSync(path.join(audioDir, 'asr', 'amateur_LJ001-0001.flac')), filename: 'line.flac' }]);
    expect(res.status).toBe(201);
    let dub = res.json();
    expect(dub.status).toBe('preparing');
    for (let i = 0; i < 1200 && dub.status === 'preparing'; i++) {
      await new Promise((r) => setTimeout(r, 250));
      dub = await (await api(`/${dub.id}`)).json();
    }
    expect(dub).toMatchObject({ status: 'ready', format: { sample_rate: 16000, channels: 1, sample_format: 's16' } });
    const { data: derived } = await (await api(`/${dub.id}/lines`)).json();
    expect(derived.length).toBeGreaterThan(0);
    expect(derived[0]).toMatchObject({ id: 1, speaker: 'S1', state: 'original' });
    expect(derived[0].words.length).toBeGreaterThan(3);
    expect(derived.map((l: { text: string }) => l.text).join(' ')).toMatch(/printing/i);
    // A man reads it: his pitch, measured from the dub's audio, gives him the most natural male voice installed.
    expect(dub.speaker_pitch.S1).toMatchObject({ gender: 'male', median_f0: expect.any(Number) });
    expect(dub.speaker_pitch.S1.median_f0).toBeLessThan(150);
    expect(derived[0].effective_voice).toBe('festival-diphone/kal');
    expect((await api(`/${dub.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await api(`/${dub.id}`)).status).toBe(404);
    expect(dubFolders()).not.toContain(dub.id);
  });

  it('documents every dubbing route in the OpenAPI document', async () => {
    const doc = await (await fetch(`${svc.url}/v1/openapi.json`, { headers: { Authorization: `Bearer ${svc.key}` } })).json();
    const result = await validate(structuredClone(doc));
    expect(result.valid, JSON.stringify(result)).toBe(true);
    for (const route of [
      '/v1/speech/transcriptions/{session_id}/dubs',
      '/v1/speech/transcriptions/{session_id}/dubs/{dub_id}',
      '/v1/speech/transcriptions/{session_id}/dubs/{dub_id}/lines',
      '/v1/speech/transcriptions/{session_id}/dubs/{dub_id}/lines/{line_id}',
      '/v1/speech/transcriptions/{session_id}/dubs/{dub_id}/revisions',
      '/v1/speech/transcriptions/{session_id}/dubs/{dub_id}/revisions/{number}',
      '/v1/speech/transcriptions/{session_id}/dubs/{dub_id}/revisions/{number}/audio',
      '/v1/speech/transcriptions/{session_id}/dubs/{dub_id}/revisions/{number}/file',
      '/v1/speech/transcriptions/{session_id}/dubs/{dub_id}/revisions/{number}/peaks',
      '/v1/speech/transcriptions/{session_id}/dubs/{dub_id}/revisions/{number}/restore',
      '/v1/speech/transcriptions/{session_id}/dubs/{dub_id}/revoice',
      '/v1/speech/transcriptions/{session_id}/dubs/{dub_id}/revoices',
      '/v1/speech/transcriptions/{session_id}/dubs/{dub_id}/revoices/{revoice_id}',
      '/v1/audio/speech',
    ]) {
      expect(doc.paths[route], route).toBeDefined();
    }
    expect(doc.components.schemas.LinePatch.properties.text.maxLength).toBe(1000);
    expect(doc.components.schemas.Revoice).toBeDefined();
  });
});
