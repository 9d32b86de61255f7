import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TranscriptEditResult, TranscriptRevisionList } from '../../src/shared/schemas/transcript-edits';
import { multipartBody, rawRequest, startServiceProcess, type ServiceProcess } from '../helpers/service';
import { tempDir } from '../helpers/temp';
import { twoReadersFile } from '../helpers/two-readers';
import { until } from '../helpers/poll';

type Session = TranscriptEditResult['session'];

describe('speaker fixes by hand', { timeout: 600_000 }, () => {
  let svc: ServiceProcess;
  let auth: Record<string, string>;
  let id: string;
  let original: Session;
  const tmp = tempDir('takeline-edits-');

  beforeAll(async () => {
    svc = await startServiceProcess();
    auth = { Authorization: `Bearer ${svc.key}` };
    const { body, contentType } = multipartBody([
      { name: 'project_key', value: 'edits' },
      { name: 'file', file: fs.readFileSync(twoReadersFile(tmp)), filename: 'two-readers.flac' },
    ]);
    const res = await rawRequest(`${svc.url}/v1/speech/transcriptions`, { method: 'POST', headers: { ...auth, 'Content-Type': contentType }, body });
    id = res.json().id;
    original = await until(() => session(), (s) => s.status === 'complete' || s.status === 'failed');
    expect(original.status).toBe('complete');
  }, 300_000);
  afterAll(async () => {
    await svc?.stop();
  });

  const session = async (): Promise<Session> => (await fetch(`${svc.url}/v1/speech/transcriptions/${id}`, { headers: auth })).json();
  const post = (p: string, body: unknown) =>
    fetch(`${svc.url}/v1/speech/transcriptions/${id}/transcript/${p}`, { method: 'POST', headers: { ...auth, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  let lastEditSentAt = 0;
  const edit = async (p: string, body: unknown) => {
    lastEditSentAt = Date.now();
    const res = await post(p, body);
    expect(res.status, await res.clone().text()).toBe(200);
    return TranscriptEditResult.parse(await res.json());
  };
  const exportOf = async (format: string) => (await fetch(`${svc.url}/v1/speech/transcriptions/${id}/export?format=${format}`, { headers: auth })).text();

  it('starts with the recognizer transcript as revision 0', async () => {
    const list = TranscriptRevisionList.parse(await (await fetch(`${svc.url}/v1/speech/transcriptions/${id}/transcript/revisions`, { headers: auth })).json());
    expect(list.current).toBe(0);
    expect(list.data.map((r) => [r.revision, r.edit])).toEqual([[0, null]]);
    // Two readers: diarization tells them apart, so every edit below has two voices to work with.
    expect(original.transcript!.speakers.length).toBeGreaterThanOrEqual(2);
  });

  let newLabel = '';
  it('splits a line at a word, then gives its second half to a new speaker', async () => {
    const t = original.transcript!;
    const line = t.segments.find((s) => s.words.length >= 4)!;
    const split = await edit('split', { segment_id: line.id, word_index: 2, base_revision: 0 });
    expect(split.revision).toMatchObject({ revision: 1, edit: { op: 'split', segment_id: line.id, word_index: 2 } });
    const after = split.session.transcript!;
    expect(after.segments).toHaveLength(t.segments.length + 1);
    expect(after.segments[line.id]!.words.map((w) => w.word)).toEqual(line.words.slice(0, 2).map((w) => w.word));
    expect(after.text.split(/\s+/)).toEqual(t.text.split(/\s+/));

    const moved = await edit('reassign', { segment_id: line.id + 1, speaker: 'new', base_revision: 1 });
    newLabel = `S${Math.max(...t.speakers.map((s) => Number(s.slice(1)))) + 1}`;
    const seg = moved.session.transcript!.segments[line.id + 1]!;
    expect(seg.speaker).toBe(newLabel);
    expect(seg.words.every((w) => w.speaker === newLabel)).toBe(true);
    expect(moved.session.transcript!.speakers).toContain(newLabel);
  });

  it('reassigns a word range of another line, cut out as its own line', async () => {
    const t = (await session()).transcript!;
    const line = t.segments.find((s) => s.speaker !== newLabel && s.words.length >= 5)!;
    const res = await edit('reassign', { segment_id: line.id, word_start: 1, word_end: 2, speaker: newLabel });
    const segs = res.session.transcript!.segments;
    expect(segs[line.id]!.words.map((w) => w.word)).toEqual([line.words[0]!.word]);
    expect(segs[line.id + 1]!).toMatchObject({ speaker: newLabel });
    expect(segs[line.id + 1]!.words.map((w) => w.word)).toEqual(line.words.slice(1, 3).map((w) => w.word));
    expect(segs[line.id + 2]!.speaker).toBe(line.speaker);
  });

  it('measures the new voice and files it under the project speakers; exports name it', async () => {
    const mapped = await until(() => session(), (s) => s.speaker_map[newLabel] !== undefined);
    const entry = mapped.speaker_map[newLabel]!;
    expect(entry.name).toMatch(/^Speaker \d+$/);
    const project = await (await fetch(`${svc.url}/v1/speech/projects/edits`, { headers: auth })).json();
    expect(project.speakers.map((s: { id: string }) => s.id)).toContain(entry.speaker_id);
    const vtt = await exportOf('vtt');
    expect(vtt).toContain(`<v ${entry.name}>`);
    const csv = await exportOf('csv');
    expect(csv).toContain(newLabel);
  });

  it('leaves an analysis run to read the edited transcript', async () => {
    // Each edit queues a run unless one is still queued: that one reads the newest transcript when it starts.
    const runs = (await (await fetch(`${svc.url}/v1/speech/transcriptions/${id}/intelligence/runs`, { headers: auth })).json()).data as Array<{ started_at: string | null }>;
    expect(runs.length).toBeGreaterThanOrEqual(1);
    expect(runs.some((r) => r.started_at === null || Date.parse(r.started_at) >= lastEditSentAt)).toBe(true);
  });

  it('merges the new speaker back; its project speaker, with no evidence left, goes', async () => {
    const before = (await session()).speaker_map[newLabel]!;
    const into = original.transcript!.speakers[0]!;
    const res = await edit('merge', { from: newLabel, into });
    expect(res.session.transcript!.speakers).not.toContain(newLabel);
    expect(res.session.transcript!.segments.some((s) => s.speaker === newLabel || s.words.some((w) => w.speaker === newLabel))).toBe(false);
    expect(res.session.speaker_map[newLabel]).toBeUndefined();
    const project = await (await fetch(`${svc.url}/v1/speech/projects/edits`, { headers: auth })).json();
    expect(project.speakers.map((s: { id: string }) => s.id)).not.toContain(before.speaker_id);
  });

  it('assigns a line to a known project speaker by id', async () => {
    const s = await session();
    const [first] = s.transcript!.speakers;
    const target = s.speaker_map[first!]!;
    const line = s.transcript!.segments.find((x) => x.speaker !== first)!;
    const res = await edit('reassign', { segment_id: line.id, speaker_id: target.speaker_id });
    expect(res.session.transcript!.segments[line.id]!.speaker).toBe(first);
  });

  it('keeps every revision, the recognizer transcript included, and restores one', async () => {
    const list = TranscriptRevisionList.parse(await (await fetch(`${svc.url}/v1/speech/transcriptions/${id}/transcript/revisions`, { headers: auth })).json());
    expect(list.data[0]!.revision).toBe(0);
    expect(list.data.slice(1).map((r) => r.edit?.op)).toEqual(expect.arrayContaining(['split', 'reassign', 'merge']));
    const zero = await (await fetch(`${svc.url}/v1/speech/transcriptions/${id}/transcript/revisions/0`, { headers: auth })).json();
    expect(zero.transcript).toEqual(original.transcript);
    const restored = await edit('revisions/0/restore', {});
    expect(restored.revision.edit).toMatchObject({ op: 'restore', revision: 0 });
    expect(restored.session.transcript).toEqual(original.transcript);
    // The recording's voices are the same project speakers again.
    expect(restored.session.speaker_map).toEqual(original.speaker_map);
    const srt = await exportOf('srt');
    expect(srt.split('\n\n').filter((c) => c.trim()).length).toBeGreaterThan(0);
  });

  it('refuses bad edits with FastAPI-style errors', async () => {
    const bad = await post('split', { segment_id: 9999, word_index: 1 });
    expect(bad.status).toBe(422);
    expect((await bad.json()).detail[0].loc).toEqual(['body', 'segment_id']);
    const both = await post('reassign', { segment_id: 0, speaker: 'S1', speaker_id: '3f1c2a9e-5b7d-4c1e-9a0b-2d6e8f4a1c3b' });
    expect(both.status).toBe(422);
    const stale = await post('merge', { from: 'S1', into: 'S2', base_revision: 1 });
    expect(stale.status).toBe(409);
    expect((await stale.json()).detail).toMatch(/changed meanwhile/);
    const extra = await post('merge', { from: 'S1', into: 'S2', why: 1 });
    expect((await extra.json()).detail[0].type).toBe('extra_forbidden');
    const missing = await fetch(`${svc.url}/v1/speech/transcriptions/3f1c2a9e-5b7d-4c1e-9a0b-2d6e8f4a1c3b/transcript/merge`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ from: 'S1', into: 'S2' }),
    });
    expect(missing.status).toBe(404);
  });
});
