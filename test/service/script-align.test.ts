import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptAlignResult, TranscriptRevisionList, TranscriptEditResult } from '../../src/shared/schemas/transcript-edits';
import { createPocketSphinxAligner } from '../../src/service/speech/alignment/pocketsphinx-aligner';
import { multipartBody, rawRequest, startServiceProcess, type ServiceProcess } from '../helpers/service';
import { audioDir } from '../helpers/paths';
import { tempDir } from '../helpers/temp';
import { joinClips } from '../helpers/two-readers';
import { until } from '../helpers/poll';
import { median } from '../../src/service/dsp/stats';

type Session = TranscriptEditResult['session'];

// Two readers taking turns (LJSpeech's reader, then the amateur desk-mic reader), about 40 s.
const CLIPS = ['ljspeech_LJ001-0001', 'amateur_LJ001-0010', 'ljspeech_LJ001-0003', 'amateur_LJ001-0035'];
const refs = new Map(
  fs
    .readFileSync(path.join(audioDir, 'asr', 'refs.tsv'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split('\t'))
    .map(([file, , text]) => [file!.replace(/\.flac$/, ''), text!]),
);
const reference = CLIPS.map((c) => refs.get(c)!);

function decode(file: string): Float32Array {
  const r = spawnSync('ffmpeg', ['-v', 'error', '-i', file, '-f', 'f32le', '-ac', '1', '-ar', '16000', '-'], { maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(String(r.stderr));
  const b = r.stdout as Buffer;
  return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
}


describe('script alignment over HTTP', { timeout: 600_000 }, () => {
  let svc: ServiceProcess;
  let auth: Record<string, string>;
  let id: string;
  let original: Session;
  const tmp = tempDir('takeline-align-');
  const file = joinClips(tmp, 'two-readers.flac', CLIPS);

  const upload = async (key: string) => {
    const { body, contentType } = multipartBody([
      { name: 'project_key', value: key },
      { name: 'file', file: fs.readFileSync(file), filename: 'two-readers.flac' },
    ]);
    const res = await rawRequest(`${svc.url}/v1/speech/transcriptions`, { method: 'POST', headers: { ...auth, 'Content-Type': contentType }, body });
    return res.json().id as string;
  };
  const session = async (sid = id): Promise<Session> => (await fetch(`${svc.url}/v1/speech/transcriptions/${sid}`, { headers: auth })).json();
  const post = (p: string, body: unknown, sid = id) =>
    fetch(`${svc.url}/v1/speech/transcriptions/${sid}/transcript/${p}`, { method: 'POST', headers: { ...auth, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const revisions = async () => TranscriptRevisionList.parse(await (await fetch(`${svc.url}/v1/speech/transcriptions/${id}/transcript/revisions`, { headers: auth })).json());

  beforeAll(async () => {
    svc = await startServiceProcess();
    auth = { Authorization: `Bearer ${svc.key}` };
    id = await upload('align');
    original = await until(() => session(), (s) => s.status === 'complete' || s.status === 'failed');
    expect(original.status).toBe('complete');
  }, 300_000);
  afterAll(async () => {
    await svc?.stop();
  });

  let aligned: ScriptAlignResult;
  it('aligns a plain script: every word timed, in order, within the recording; speakers from diarization', async () => {
    const res = await post('align', { text: reference.join('\n'), base_revision: 0 });
    expect(res.status, await res.clone().text()).toBe(200);
    aligned = ScriptAlignResult.parse(await res.json());
    const t = aligned.session.transcript!;
    const words = t.segments.flatMap((s) => s.words);
    const scriptTokens = reference.join(' ').split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w));
    expect(words.map((w) => w.word)).toEqual(scriptTokens);
    expect(aligned.alignment.words).toBe(scriptTokens.length);
    expect(aligned.alignment.aligned + aligned.alignment.interpolated).toBe(scriptTokens.length);
    // Real read speech of dictionary words: the aligner places nearly all of them.
    expect(aligned.alignment.aligned).toBeGreaterThanOrEqual(scriptTokens.length * 0.9);
    let at = 0;
    for (const w of words) {
      expect(w.start).toBeGreaterThanOrEqual(at);
      expect(w.end).toBeGreaterThanOrEqual(w.start);
      at = w.end;
    }
    expect(at).toBeLessThanOrEqual(aligned.session.duration);
    // Lines follow the script's lines (and sentence ends): no line mixes two of them.
    expect(t.segments.length).toBeGreaterThanOrEqual(CLIPS.length);
    expect(t.text.replace(/\s+/g, ' ')).toBe(reference.join(' ').replace(/\s+/g, ' '));
    expect(new Set(t.speakers)).toEqual(new Set(t.segments.map((s) => s.speaker)));
    for (const label of t.speakers) expect(original.transcript!.speakers).toContain(label);
    expect(aligned.revision).toMatchObject({ revision: 1, edit: { op: 'align_script', words: scriptTokens.length, speaker_names: null } });
  });

  it('agrees with a forced alignment of the whole clip at once', async () => {
    const aligner = createPocketSphinxAligner();
    try {
      const direct = await aligner.align(decode(file), reference.join(' '));
      const ours = aligned.session.transcript!.segments.flatMap((s) => s.words);
      expect(direct.length).toBe(ours.length);
      const diffs: number[] = [];
      ours.forEach((w, k) => {
        // Words both placed (the direct run interpolates words its dictionary lacks; ours pronounces them).
        if (direct[k]!.confidence > 0 && w.confidence > 0) diffs.push(Math.abs(w.start - direct[k]!.start), Math.abs(w.end - direct[k]!.end));
      });
      expect(diffs.length).toBeGreaterThan(ours.length);
      expect(median(diffs)).toBeLessThanOrEqual(0.03);
      const sorted = [...diffs].sort((a, b) => a - b);
      expect(sorted[Math.floor(sorted.length * 0.9)]!).toBeLessThanOrEqual(0.15);
    } finally {
      await aligner.close();
    }
  });

  it('is a revision like any edit: listed, restorable, and the analysis follows it', async () => {
    const list = await revisions();
    expect(list.current).toBe(1);
    expect(list.data.map((r) => r.edit?.op ?? null)).toEqual([null, 'align_script']);
    const restore = await post('revisions/0/restore', { base_revision: 1 });
    expect(restore.status).toBe(200);
    expect((await session()).transcript).toEqual(original.transcript);
    const runs = (await (await fetch(`${svc.url}/v1/speech/transcriptions/${id}/intelligence/runs`, { headers: auth })).json()).data as unknown[];
    expect(runs.length).toBeGreaterThanOrEqual(1);
  });

  it('takes speakers from NAME: labels, giving each name the voice diarization heard on its lines', async () => {
    const script = [`LINDA: ${reference[0]}`, `AMY: ${reference[1]}`, `LINDA: ${reference[2]}`, `AMY: ${reference[3]}`].join('\n');
    const res = await post('align', { text: script, base_revision: 2 });
    expect(res.status, await res.clone().text()).toBe(200);
    const body = ScriptAlignResult.parse(await res.json());
    const names = body.alignment.speaker_names!;
    expect(Object.keys(names).sort()).toEqual(['AMY', 'LINDA']);
    expect(names.LINDA).not.toBe(names.AMY);
    const t = body.session.transcript!;
    const words = t.segments.flatMap((s) => s.words);
    const perClip = reference.map((r) => r.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w)).length);
    let k = 0;
    perClip.forEach((n, clip) => {
      for (const w of words.slice(k, k + n)) expect(w.speaker).toBe(clip % 2 === 0 ? names.LINDA : names.AMY);
      k += n;
    });
    // Each name became the label diarization gave most of its lines (two readers, told apart on this clip).
    const diarized = original.transcript!;
    const firstLineSpeaker = diarized.segments.find((s) => s.end > 1)!.speaker;
    expect(names.LINDA).toBe(firstLineSpeaker);
  });

  it('refuses bad scripts and stale revisions with nothing changed', async () => {
    const before = await revisions();
    const empty = await post('align', { text: '  \n — ' });
    expect(empty.status).toBe(422);
    expect((await empty.json()).detail[0]).toMatchObject({ loc: ['body', 'text'], msg: expect.stringMatching(/no words/) });
    const many = await post('align', { text: 'a '.repeat(200_001) });
    expect(many.status).toBe(422);
    expect((await many.json()).detail[0].msg).toMatch(/more than 200000 words/);
    // Over 1,000,000 bytes (but under the 1 MiB JSON body limit, past which any body is 413).
    const big = await post('align', { text: 'abc '.repeat(250_100) });
    expect(big.status).toBe(422);
    expect((await big.json()).detail[0].msg).toMatch(/larger than 1000000 bytes/);
    const missing = await post('align', {});
    expect(missing.status).toBe(422);
    expect((await missing.json()).detail[0].loc).toEqual(['body', 'text']);
    const stale = await post('align', { text: 'hello', base_revision: 0 });
    expect(stale.status).toBe(409);
    expect((await stale.json()).detail).toMatch(/changed meanwhile/);
    expect(await revisions()).toEqual(before);

    // A recording still being transcribed has nothing to align to yet.
    const fresh = await upload('align-early');
    const early = await post('align', { text: 'hello there' }, fresh);
    expect(early.status).toBe(409);
    expect((await early.json()).detail).toMatch(/not ready/);
  });
});
