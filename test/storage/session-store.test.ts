import crypto from 'node:crypto';
import { expect, it } from 'vitest';
import { openStores } from '../../src/service/storage/stores';
import type { Transcript } from '../../src/service/speech/types';
import { eachBackend } from '../helpers/sql-backends';

function transcript(text: string, duration = 1): Transcript {
  const words = [{ word: text, start: 0.1, end: 0.5, speaker: 'S1', confidence: 0.9 }];
  return {
    language: 'en',
    duration,
    text,
    segments: [{ id: 0, speaker: 'S1', start: 0, end: 1, text, words, avgLogprob: -1 }],
    speakers: ['S1'],
    engine: 'test',
  };
}

// The sessions table's contract, and its change counter (migration 8's triggers), on both databases: the
// counter is what documents are ETagged by, so every API node must see it move the same way.
eachBackend('SessionStore', (backend) => {
  async function fixture() {
    const { sql } = backend();
    const database = openStores(sql);
    const project = await database.projects.create(`p${crypto.randomUUID().slice(0, 8)}`, 'P');
    const add = async (projectId = project.id, duration = 1) => {
      const id = crypto.randomUUID();
      await database.sessions.insert({ id, projectId, fileName: 'a.flac', storedName: 'original.flac', duration, format: { container: 'flac' } as never, language: 'en' });
      return id;
    };
    return { sql, database, ...database, project, add, id: await add() };
  }

  /** Runs `write` and says whether the session's counter moved. */
  const bumps = async (f: Awaited<ReturnType<typeof fixture>>, id: string, write: () => Promise<unknown>) => {
    const before = await f.sessions.changeSeq(id);
    await write();
    return (await f.sessions.changeSeq(id))! > before!;
  };

  it('stores, reads and lists sessions newest first, narrowed to projects', async () => {
    const { sessions, projects, project, add, id } = await fixture();
    const other = await projects.create('other', 'Other');
    const second = await add(other.id);
    expect(await sessions.projectOf(id)).toBe(project.id);
    expect(await sessions.projectOf(crypto.randomUUID())).toBeNull();
    expect(await Promise.all([second, crypto.randomUUID(), id, second].map((s) => sessions.projectOf(s)))).toEqual([other.id, null, project.id, other.id]);
    expect(await sessions.storedName(id)).toBe('original.flac');
    expect((await sessions.summary(id))).toMatchObject({ id, project: { id: project.id, key: project.key, name: 'P' }, status: 'queued', format: { container: 'flac' } });
    const all = await sessions.list({ limit: 10, offset: 0 });
    expect(all.total).toBe(2);
    expect(new Set(all.data.map((s) => s.id))).toEqual(new Set([id, second]));
    expect((await sessions.list({ projectIds: [other.id], limit: 10, offset: 0 })).data.map((s) => s.id)).toEqual([second]);
    expect(await sessions.list({ projectIds: [], limit: 10, offset: 0 })).toEqual({ data: [], total: 0 });
    expect((await sessions.list({ projectId: project.id, limit: 1, offset: 1 })).data).toEqual([]);
    // The total counts every match, whatever the page holds, also past the end.
    const first = await sessions.list({ limit: 1, offset: 0 });
    expect(first.total).toBe(2);
    expect(first.data).toEqual([await sessions.summary(first.data[0]!.id)]);
    expect(await sessions.list({ limit: 1, offset: 5 })).toEqual({ data: [], total: 2 });
    expect(await sessions.allIds()).toEqual(new Set([id, second]));
  });

  it('keeps the transcript, counts its lines, and trusts the decoded length over the header', async () => {
    const { sessions, add } = await fixture();
    const id = await add(undefined, 100);
    expect(await sessions.segmentCount(id)).toBe(0);
    await sessions.complete(id, transcript('hello', 60));
    expect(await sessions.segmentCount(id)).toBe(1);
    expect((await sessions.transcript(id))?.text).toBe('hello');
    expect((await sessions.summary(id))).toMatchObject({ status: 'complete', progress: 1, duration: 60 });
  });

  it('gives the session document with its speaker map, before and after the transcript exists', async () => {
    const { sessions, id } = await fixture();
    const map = { S1: { speaker_id: crypto.randomUUID(), number: 1, name: 'Ann', similarity: 1, matched: true, match_threshold: 0.9615, first_heard_in: { session_id: id, file_name: 'a.flac' } } };
    const expected = async () => JSON.parse(JSON.stringify({ ...(await sessions.get(id)), speaker_map: map }));
    const doc = async () => JSON.parse((await sessions.documentBytes((await sessions.summary(id))!, map)).toString('utf8'));
    expect(await doc()).toEqual(await expected());
    expect((await doc()).transcript).toBeNull();
    await sessions.complete(id, transcript('hello — ünïcode'));
    expect(await doc()).toEqual(await expected());
    expect((await doc()).transcript.segments[0].text).toBe('hello — ünïcode');
    expect((await doc()).transcript.segments[0]).not.toHaveProperty('avgLogprob');
  });

  it('raises the change counter on every write to the session row, through any path', async () => {
    const f = await fixture();
    const { sessions, revisions, sql, id } = f;
    expect(await sessions.changeSeq(id)).toBe(0);
    expect(await bumps(f, id, () => sessions.setProgress(id, 'running', 0.5, 'recognizing'))).toBe(true);
    expect(await bumps(f, id, () => sessions.setMedia(id, { timebase: null } as never))).toBe(true);
    expect(await bumps(f, id, () => sessions.complete(id, transcript('a')))).toBe(true);
    // A transcript revision (speaker fixes by hand) rewrites the stored text.
    expect(await bumps(f, id, () => revisions.append(id, transcript('b'), { op: 'merge', from: 'S1', into: 'S1' } as never, {}))).toBe(true);
    expect(await bumps(f, id, () => sql.run('UPDATE sessions SET transcript_json = ? WHERE id = ?', [JSON.stringify(transcript('c')), id]))).toBe(true);
    const other = await f.add();
    await sessions.setProgress(other, 'running', 0.1, 'recognizing');
    await sql.run("INSERT INTO jobs (id, kind, session_id, status, created_at) VALUES (?, 'transcribe', ?, 'running', ?)", [crypto.randomUUID(), other, new Date().toISOString()]);
    expect(await bumps(f, other, () => sessions.recoverInterrupted())).toBe(true);
    expect((await sessions.summary(other))?.status).toBe('queued');
    // One write raises it by one: the trigger's own update does not fire it again.
    const seq = (await sessions.changeSeq(id))!;
    await sessions.setProgress(id, 'complete', 1, 'complete');
    expect(await sessions.changeSeq(id)).toBe(seq + 1);
    // Read at once (as by many requests), each gets its own session's counter; an unknown id null.
    const otherSeq = (await sessions.changeSeq(other))!;
    expect(otherSeq).toBeGreaterThan(0);
    const many = await Promise.all([id, other, crypto.randomUUID(), id].map((s) => sessions.changeSeq(s)));
    expect(many).toEqual([seq + 1, otherSeq, null, seq + 1]);
    // An id PostgreSQL's text cannot hold, asked with others, fails (there) only its own read.
    const mixed = await Promise.allSettled([id, 'bad\0id', other].map((s) => sessions.changeSeq(s)));
    expect([mixed[0], mixed[2]]).toEqual([{ status: 'fulfilled', value: seq + 1 }, { status: 'fulfilled', value: otherSeq }]);
  });

  it("raises it when the speaker map, the project or the project's speakers change, and only for that project", async () => {
    const f = await fixture();
    const { projects, speakers, project, sessions, sql, id } = f;
    const elsewhere = await projects.create(`q${crypto.randomUUID().slice(0, 8)}`, 'Q');
    const stranger = await f.add(elsewhere.id);
    let speaker = '';
    expect(await bumps(f, id, async () => (speaker = await speakers.createProjectSpeaker(project.id, [1, 2], 3, 1)))).toBe(true);
    expect(await bumps(f, id, () => speakers.insertMapping(id, { label: 'S1', speaker_id: speaker, similarity: 1, matched: 1, seconds: 3, assigned: 'voice' }))).toBe(true);
    expect(await bumps(f, id, () => speakers.pin(id, 'S1', speaker, 3))).toBe(true);
    expect(await bumps(f, id, () => speakers.renameProjectSpeaker(project.id, speaker, 'Ann'))).toBe(true);
    expect(await bumps(f, id, () => projects.setVocabulary(project.id, ['Takeline']))).toBe(true);
    expect(await bumps(f, id, () => speakers.clearMap(id))).toBe(true);
    expect(await bumps(f, id, () => sql.run('DELETE FROM project_speakers WHERE id = ?', [speaker]))).toBe(true);
    expect(await sessions.changeSeq(stranger)).toBe(0);
  });

  it('is gone, with its speaker map, once deleted', async () => {
    const f = await fixture();
    const speaker = await f.speakers.createProjectSpeaker(f.project.id, [1], 1, 1);
    await f.speakers.insertMapping(f.id, { label: 'S1', speaker_id: speaker, similarity: 1, matched: 1, seconds: 3, assigned: 'voice' });
    expect(await f.sessions.delete(f.id)).toBe(true);
    expect(await f.sessions.delete(f.id)).toBe(false);
    expect(await f.sessions.changeSeq(f.id)).toBeNull();
    expect(await f.speakers.map(f.id)).toEqual([]);
  });
});
