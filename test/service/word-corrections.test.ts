import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ProjectTranscriptReplaceResult,
  TranscriptEditResult,
  TranscriptReplaceResult,
  TranscriptRevisionList,
} from '../../src/shared/schemas/transcript-edits';
import { decodeAudioToArray } from '../../src/service/media/decode';
import { resolveMediaTools } from '../../src/service/media/tools';
import { createPocketSphinxAligner } from '../../src/service/speech/alignment/pocketsphinx-aligner';
import { normalizeWords } from '../../src/service/speech/scoring/wer';
import { audioDir } from '../helpers/paths';
import { multipartBody, rawRequest, startServiceProcess, type ServiceProcess } from '../helpers/service';
import { until } from '../helpers/poll';

type Session = TranscriptEditResult['session'];
type Word = NonNullable<Session['transcript']>['segments'][number]['words'][number];

const asr = path.join(audioDir, 'asr');
const references = new Map(
  fs
    .readFileSync(path.join(asr, 'refs.tsv'), 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => line.split('\t'))
    .map(([file, , text]) => [file!, text!]),
);
// Two clips the recognizer gets wrong in several places (measured: "percent console to defrost", "flower fat and").
const AMATEUR = 'amateur_LJ001-0001.flac';
const LIBRI = 'librispeech_test_clean_1089-134686-0000.flac';
const key = (w: string) => normalizeWords(w).join(' ');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

describe('word corrections', { timeout: 600_000 }, () => {
  let svc: ServiceProcess;
  let auth: Record<string, string>;
  const ids: Record<string, string> = {};
  const recognized: Record<string, Session> = {};

  beforeAll(async () => {
    svc = await startServiceProcess();
    auth = { Authorization: `Bearer ${svc.key}` };
    for (const file of [AMATEUR, LIBRI]) {
      const { body, contentType } = multipartBody([
        { name: 'project_key', value: 'words' },
        { name: 'file', file: fs.readFileSync(path.join(asr, file)), filename: file },
      ]);
      const res = await rawRequest(`${svc.url}/v1/speech/transcriptions`, { method: 'POST', headers: { ...auth, 'Content-Type': contentType }, body });
      ids[file] = res.json().id;
    }
    for (const file of [AMATEUR, LIBRI]) {
      recognized[file] = await until(() => session(ids[file]!), (s) => s.status === 'complete' || s.status === 'failed');
      expect(recognized[file]!.status).toBe('complete');
    }
  }, 400_000);
  afterAll(async () => {
    await svc?.stop();
  });

  const session = async (id: string): Promise<Session> => (await fetch(`${svc.url}/v1/speech/transcriptions/${id}`, { headers: auth })).json();
  const send = (method: string, url: string, body: unknown) =>
    fetch(`${svc.url}${url}`, { method, headers: { ...auth, 'Content-Type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  const patchLine = (id: string, segment: number | string, body: unknown) => send('PATCH', `/v1/speech/transcriptions/${id}/transcript/segments/${segment}`, body);
  const replace = (id: string, body: unknown) => send('POST', `/v1/speech/transcriptions/${id}/transcript/replace`, body);
  const revisions = async (id: string) =>
    TranscriptRevisionList.parse(await (await fetch(`${svc.url}/v1/speech/transcriptions/${id}/transcript/revisions`, { headers: auth })).json());
  const ok = async <T,>(res: Response, schema: { parse(v: unknown): T }): Promise<T> => {
    expect(res.status, await res.clone().text()).toBe(200);
    return schema.parse(await res.json());
  };

  /** Every word in order, none overlapping the one before, all inside the line. */
  function expectOrdered(words: Word[], span: { start: number; end: number }) {
    for (let i = 0; i < words.length; i++) {
      const w = words[i]!;
      expect(w.end).toBeGreaterThan(w.start);
      expect(w.start).toBeGreaterThanOrEqual(span.start - 1e-9);
      expect(w.end).toBeLessThanOrEqual(span.end + 1e-9);
      if (i > 0) expect(w.start).toBeGreaterThanOrEqual(words[i - 1]!.end - 1e-9);
    }
  }

  /** Words the edit did not time again are the recognizer's words, timings and confidence identical, in order. */
  function expectKeptIdentical(before: Word[], after: Word[], retimed: Set<number>) {
    let from = 0;
    after.forEach((w, j) => {
      if (retimed.has(j)) return;
      const i = before.findIndex((o, k) => k >= from && key(o.word) === key(w.word));
      expect(i, `kept word ${j} "${w.word}"`).toBeGreaterThanOrEqual(0);
      expect({ start: w.start, end: w.end, confidence: w.confidence }).toEqual({ start: before[i]!.start, end: before[i]!.end, confidence: before[i]!.confidence });
      from = i + 1;
    });
  }

  it('corrects a line to its reference: unchanged words keep their times, changed ones are aligned near the full reference’s alignment', async () => {
    const id = ids[AMATEUR]!;
    const [line] = recognized[AMATEUR]!.transcript!.segments;
    // The recognizer hears this clip as one line (measured); the reference is that line's text.
    expect(recognized[AMATEUR]!.transcript!.segments).toHaveLength(1);
    const reference = references.get(AMATEUR)!;
    const res = await ok(await patchLine(id, line!.id, { text: reference, base_revision: 0 }), TranscriptEditResult);
    expect(res.revision).toMatchObject({ revision: 1, edit: { op: 'edit_text', segment_id: line!.id, word_start: null, word_end: null } });
    const record = (res.revision.edit!.lines as Array<{ aligned: number[]; interpolated: number[]; retimed_unchanged: number[]; before: string; after: string }>)[0]!;
    expect(record.after).toBe(reference);
    const seg = res.session.transcript!.segments[0]!;
    expect(seg.text).toBe(reference);
    expect(seg.words.map((w) => w.word)).toEqual(reference.split(' '));
    expect(res.session.transcript!.text).toBe(reference);
    // The whole line saved: confirmed by the editor, and so served.
    expect(seg.confirmed).toBe(true);
    expect((await session(id)).transcript!.segments[0]!.confirmed).toBe(true);
    expectOrdered(seg.words, seg);

    const retimed = new Set([...record.aligned, ...record.interpolated]);
    expect(retimed.size).toBeGreaterThanOrEqual(4);
    expectKeptIdentical(line!.words, seg.words, retimed);
    for (const j of retimed) if (!record.retimed_unchanged.includes(j)) expect(seg.words[j]!.confidence).toBe(1);

    // The aligner over the whole clip with the whole reference is the yardstick for the changed words' times.
    const aligner = createPocketSphinxAligner({ pronounceUnknown: true });
    try {
      const pcm = await decodeAudioToArray(path.join(asr, AMATEUR), resolveMediaTools());
      const full = await aligner.align(pcm, reference);
      expect(full.map((w) => w.word)).toEqual(reference.split(' '));
      const diffs = record.aligned.flatMap((j) => [Math.abs(seg.words[j]!.start - full[j]!.start), Math.abs(seg.words[j]!.end - full[j]!.end)]);
      expect(record.aligned.length).toBeGreaterThanOrEqual(3);
      // Bound well inside a word (a typical word lasts 0.2–0.4 s); bench/word-corrections prints the figure.
      expect(median(diffs)).toBeLessThan(0.06);
    } finally {
      await aligner.close();
    }
  });

  it('replaces a word range: the words outside it are untouched', async () => {
    const id = ids[LIBRI]!;
    const [line] = recognized[LIBRI]!.transcript!.segments;
    const i = line!.words.findIndex((w) => key(w.word) === 'labeled');
    expect(i).toBeGreaterThan(0);
    const res = await ok(await patchLine(id, line!.id, { text: 'ladled', word_start: i, word_end: i }), TranscriptEditResult);
    expect(res.revision.edit).toMatchObject({ op: 'edit_text', word_start: i, word_end: i });
    const words = res.session.transcript!.segments[0]!.words;
    expect(words.map((w) => w.word)).toEqual(line!.words.map((w, k) => (k === i ? 'ladled' : w.word)));
    words.forEach((w, k) => {
      if (k !== i) expect(w).toEqual(line!.words[k]);
    });
    expect(words[i]!.confidence).toBe(1);
    // One word corrected: the rest of the line is not thereby checked.
    expect(res.session.transcript!.segments[0]!.confirmed).toBeUndefined();
    expect(words[i]!.start).toBeGreaterThanOrEqual(line!.words[i - 1]!.end);
    expect(words[i]!.end).toBeLessThanOrEqual(line!.words[i + 1]!.start);
  });

  it('finds and replaces a phrase across word boundaries: a preview writes nothing, then one revision', async () => {
    const id = ids[LIBRI]!;
    const before = await session(id);
    const listBefore = await revisions(id);
    const preview = await ok(await replace(id, { find: 'Flower fat AND', replace: 'flour fattened', preview: true }), TranscriptReplaceResult);
    expect(preview).toMatchObject({ preview: true, count: 1, revision: null });
    expect(preview.matches).toEqual([expect.objectContaining({ segment_id: 0, before: 'flower fat and', after: 'flour fattened' })]);
    expect(preview.session).toBeUndefined();
    expect(await revisions(id)).toEqual(listBefore);
    expect((await session(id)).transcript).toEqual(before.transcript);

    const applied = await ok(await replace(id, { find: 'Flower fat AND', replace: 'flour fattened', base_revision: listBefore.current }), TranscriptReplaceResult);
    expect(applied.revision).toMatchObject({ revision: listBefore.current + 1, edit: { op: 'replace', find: 'Flower fat AND', matches: 1 } });
    const words = applied.session!.transcript!.segments[0]!.words;
    expect(words.map((w) => key(w.word)).join(' ')).toMatch(/thick peppered flour fattened sauce$/);
    expectOrdered(words, applied.session!.transcript!.segments[0]!);
    const record = (applied.revision!.edit!.lines as Array<{ aligned: number[]; interpolated: number[] }>)[0]!;
    expectKeptIdentical(before.transcript!.segments[0]!.words, words, new Set([...record.aligned, ...record.interpolated]));
    expect((await revisions(id)).data).toHaveLength(listBefore.data.length + 1);
  });

  it('replaces across a project, one revision per recording, with counts per recording in the preview', async () => {
    const preview = await ok(await send('POST', '/v1/speech/projects/words/transcripts/replace', { find: 'in', replace: 'within', whole_words: true, preview: true }), ProjectTranscriptReplaceResult);
    const expected = async (id: string) => (await session(id)).transcript!.segments.flatMap((s) => s.words).filter((w) => key(w.word) === 'in').length;
    const counts = Object.fromEntries(preview.recordings.map((r) => [r.session_id, r.count]));
    expect(counts).toEqual({ [ids[AMATEUR]!]: await expected(ids[AMATEUR]!), [ids[LIBRI]!]: await expected(ids[LIBRI]!) });
    expect(counts[ids[AMATEUR]!]).toBeGreaterThanOrEqual(2);
    expect(counts[ids[LIBRI]!]).toBeGreaterThanOrEqual(1);
    expect(preview.count).toBe(counts[ids[AMATEUR]!]! + counts[ids[LIBRI]!]!);
    expect(preview.recordings.every((r) => r.revision === null)).toBe(true);

    const currents = { a: (await revisions(ids[AMATEUR]!)).current, l: (await revisions(ids[LIBRI]!)).current };
    const applied = await ok(await send('POST', `/v1/speech/projects/words/transcripts/replace`, { find: 'in', replace: 'within', whole_words: true }), ProjectTranscriptReplaceResult);
    const byId = new Map(applied.recordings.map((r) => [r.session_id, r]));
    expect(byId.get(ids[AMATEUR]!)!.revision).toMatchObject({ revision: currents.a + 1, edit: { op: 'replace' } });
    expect(byId.get(ids[LIBRI]!)!.revision).toMatchObject({ revision: currents.l + 1, edit: { op: 'replace' } });
    for (const id of [ids[AMATEUR]!, ids[LIBRI]!]) {
      const words = (await session(id)).transcript!.segments.flatMap((s) => s.words).map((w) => key(w.word));
      expect(words).not.toContain('in');
      expect(words).toContain('within');
    }

    // Undo as today: the revision before the replacement becomes current again.
    const undo = await ok(await send('POST', `/v1/speech/transcriptions/${ids[AMATEUR]!}/transcript/revisions/${currents.a}/restore`, {}), TranscriptEditResult);
    expect(undo.session.transcript!.text).toBe(references.get(AMATEUR)!);
  });

  it('refuses bad corrections with the validation shape and changes nothing', async () => {
    const id = ids[AMATEUR]!;
    const before = await session(id);
    const list = await revisions(id);
    const status = async (res: Response, code: number, loc?: unknown[]) => {
      const body = await res.json();
      expect(res.status, JSON.stringify(body)).toBe(code);
      if (loc) expect(body.detail[0].loc).toEqual(loc);
      return body;
    };
    await status(await patchLine(id, 0, { text: 'Printing', base_revision: list.current - 1 }), 409);
    await status(await patchLine(id, 0, { text: '   ' }), 422, ['body', 'text']);
    await status(await patchLine(id, 0, { text: 'word '.repeat(401) }), 422, ['body', 'text']);
    await status(await patchLine(id, 0, { text: 'x', word_start: 3, word_end: 1 }), 422, ['body', 'word_end']);
    await status(await patchLine(id, 0, { text: 'x', word_start: 999 }), 422, ['body', 'word_start']);
    await status(await patchLine(id, 0, { text: '', word_start: 0, word_end: before.transcript!.segments[0]!.words.length - 1 }), 422, ['body', 'text']);
    await status(await patchLine(id, 0, { text: before.transcript!.segments[0]!.text }), 422, ['body', 'text']);
    expect((await status(await patchLine(id, 0, { text: 'x', why: 1 }), 422)).detail[0].type).toBe('extra_forbidden');
    await status(await patchLine(id, 0, '{"text": '), 422);
    await status(await patchLine(id, 'first', { text: 'x' }), 422, ['path', 'segment_id']);
    await status(await patchLine(id, 42, { text: 'x' }), 404);
    await status(await patchLine('3f1c2a9e-5b7d-4c1e-9a0b-2d6e8f4a1c3b', 0, { text: 'x' }), 404);
    await status(await replace(id, { find: '  ', replace: 'x' }), 422, ['body', 'find']);
    await status(await replace(id, { find: 'x'.repeat(2001), replace: 'y' }), 422, ['body', 'find']);
    await status(await replace(id, { find: before.transcript!.segments[0]!.words.map((w) => w.word).join(' '), replace: '' }), 422, ['body', 'replace']);
    await status(await replace(id, { find: 'Printing', replace: 'x', base_revision: list.current + 5 }), 409);
    await status(await send('POST', '/v1/speech/projects/no-such-project/transcripts/replace', { find: 'a', replace: 'b' }), 404);
    expect((await status(await send('POST', '/v1/speech/projects/words/transcripts/replace', { find: 'a', replace: 'b', base_revision: 0 }), 422)).detail[0].type).toBe('extra_forbidden');
    expect(await revisions(id)).toEqual(list);
    expect((await session(id)).transcript).toEqual(before.transcript);
  });

  it('documents the routes in the OpenAPI document', async () => {
    const doc = await (await fetch(`${svc.url}/v1/openapi.json`, { headers: auth })).json();
    expect(doc.paths['/v1/speech/transcriptions/{session_id}/transcript/segments/{segment_id}'].patch).toBeDefined();
    expect(doc.paths['/v1/speech/transcriptions/{session_id}/transcript/replace'].post).toBeDefined();
    expect(doc.paths['/v1/speech/projects/{project}/transcripts/replace'].post).toBeDefined();
    expect(doc.components.schemas.TranscriptTextEdit.properties.text.maxLength).toBe(2000);
    expect(doc.components.schemas.TranscriptReplace.required.sort()).toEqual(['find', 'replace']);
  });

  it('every export and the analysis re-run read the corrected words', async () => {
    const id = ids[AMATEUR]!;
    const exportOf = async (format: string) => {
      const res = await fetch(`${svc.url}/v1/speech/transcriptions/${id}/export?format=${format}`, { headers: auth });
      expect(res.status).toBe(200);
      return res.text();
    };
    for (const format of ['srt', 'vtt', 'csv']) {
      const text = await exportOf(format);
      expect(text, format).toContain('at present concerned, differs');
      expect(text, format).not.toContain('percent console');
    }
    for (const format of ['edl', 'fcpxml']) expect((await exportOf(format)).length).toBeGreaterThan(0);
    // The newest analysis run started after the last edit and measures the corrected line.
    const doc = await until(
      async () => (await fetch(`${svc.url}/v1/speech/transcriptions/${id}/intelligence`, { headers: auth })).json(),
      (d) => d.intelligence?.status === 'complete' || d.intelligence?.status === 'failed',
      400_000,
    );
    expect(doc.intelligence.status).toBe('complete');
    expect(doc.intelligence.segments[0].text).toBe(references.get(AMATEUR)!);
  });
});
