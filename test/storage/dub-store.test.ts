import crypto from 'node:crypto';
import { expect, it } from 'vitest';
import { JobRunner } from '../../src/service/jobs/job-runner';
import { SqlJobStore } from '../../src/service/storage/job-store';
import { SqlProjectStore } from '../../src/service/storage/project-store';
import { SqlSessionStore } from '../../src/service/storage/session-store';
import { RevisionTaken, SqlDubStore, type LineRecord, type NewDub, type PlannedLine, type TakeRecord } from '../../src/service/storage/dub-store';
import type { Sql } from '../../src/service/storage/sql/sql';
import type { LineRender } from '../../src/shared/schemas';
import { eachBackend } from '../helpers/sql-backends';

/** A recording for dubs to belong to. */
async function session(sql: Sql): Promise<string> {
  const project = await new SqlProjectStore(sql).create(`p-${crypto.randomUUID().slice(0, 8)}`, 'Project');
  const id = crypto.randomUUID();
  await new SqlSessionStore(sql).insert({ id, projectId: project.id, fileName: 'take.wav', storedName: 'original.wav', duration: 10, format: {} as never, language: 'en' });
  return id;
}

function newDub(sessionId: string, fields: Partial<NewDub> = {}): NewDub {
  return {
    id: crypto.randomUUID(),
    sessionId,
    name: 'Episode 1',
    fileName: 'episode.wav',
    status: 'ready',
    sampleRate: 48000,
    channels: 2,
    sampleFormat: 's24',
    frames: 480000,
    background: false,
    defaultVoice: null,
    voices: { S1: 'festival:slt' },
    ...fields,
  };
}

const words = [
  { word: 'Hello', start: 0.5, end: 0.9, probability: 0.9 },
  { word: 'there', start: 1, end: 1.4, probability: 0.8 },
];

const render = (lineId: number): LineRender =>
  ({ line_id: lineId, revision: 0, text: `line ${lineId}`, voice: 'festival:slt', region: { start_frame: lineId * 1000, end_frame: lineId * 1000 + 500 }, words: [] }) as unknown as LineRender;

async function count(sql: Sql, table: string): Promise<number> {
  return Number((await sql.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`))!.n);
}

// The dubbing tables' contract, the same on SQLite and PostgreSQL.
eachBackend('DubStore', (backend) => {
  const store = () => {
    const { sql } = backend();
    return new SqlDubStore(sql);
  };

  it('creates a dub with its revision 1, finds it only under its recording, and lists a recording’s dubs oldest first', async () => {
    const dubs = store();
    const sessionId = await session(backend().sql);
    const other = await session(backend().sql);
    const a = newDub(sessionId, { background: true, defaultVoice: 'festival:kal' });
    await dubs.insertDub(a, 'r0001.wav');
    await new Promise((r) => setTimeout(r, 5));
    const b = newDub(sessionId, { status: 'preparing', source: 'recording', transcriptRevision: 3 });
    await dubs.insertDub(b, 'r0001.wav');

    const found = (await dubs.dub(sessionId, a.id))!;
    expect(found).toMatchObject({ ...a, source: 'upload', transcriptRevision: null, currentRevision: 1, progress: 0, stage: null, error: null, lineSeq: 0 });
    expect(found.createdAt).toBe(found.updatedAt);
    expect(await dubs.dub(other, a.id)).toBeNull();
    expect(await dubs.dubById(b.id)).toMatchObject({ status: 'preparing', source: 'recording', transcriptRevision: 3, background: false });
    expect(await dubs.dubById(crypto.randomUUID())).toBeNull();
    expect((await dubs.dubs(sessionId)).map((d) => d.id)).toEqual([a.id, b.id]);
    expect(await dubs.dubs(other)).toEqual([]);
    expect((await dubs.allDubIds()).sort((x, y) => x.dubId.localeCompare(y.dubId))).toEqual(
      [a, b].map((d) => ({ sessionId, dubId: d.id })).sort((x, y) => x.dubId.localeCompare(y.dubId)),
    );
    expect(await dubs.revisions(a.id)).toEqual([
      { number: 1, base: null, source: 'upload', revoiceId: null, takeId: null, fileName: 'r0001.wav', renders: {}, linesRevoiced: [], createdAt: found.createdAt },
    ]);
  });

  it('changes only the dub fields given, and records progress and format', async () => {
    const dubs = store();
    const dub = newDub(await session(backend().sql), { defaultVoice: 'festival:kal' });
    await dubs.insertDub(dub, 'r0001.wav');
    await dubs.updateDub(dub.id, { name: 'Renamed' });
    expect(await dubs.dubById(dub.id)).toMatchObject({ name: 'Renamed', defaultVoice: 'festival:kal', voices: dub.voices, currentRevision: 1 });
    await dubs.updateDub(dub.id, { defaultVoice: null, voices: {}, currentRevision: 2 });
    expect(await dubs.dubById(dub.id)).toMatchObject({ name: 'Renamed', defaultVoice: null, voices: {}, currentRevision: 2 });

    await dubs.setProgress(dub.id, 'preparing', 0.25, 'converting audio');
    expect(await dubs.dubById(dub.id)).toMatchObject({ status: 'preparing', progress: 0.25, stage: 'converting audio', error: null });
    await dubs.setProgress(dub.id, 'failed', 0.5, 'failed', 'no speech recognizer');
    expect(await dubs.dubById(dub.id)).toMatchObject({ status: 'failed', progress: 0.5, error: 'no speech recognizer' });
    await dubs.setFormat(dub.id, { sampleRate: 44100, channels: 1, sampleFormat: 's16', frames: 123457 });
    expect(await dubs.dubById(dub.id)).toMatchObject({ sampleRate: 44100, channels: 1, sampleFormat: 's16', frames: 123457 });

    // Each speaker's measured pitch: none until measured, then as recorded, replaced whole.
    expect((await dubs.dubById(dub.id))!.speakerPitch).toEqual({});
    const pitch = { S1: { median_f0: 108.5, voiced_seconds: 12.3, gender: 'male' as const }, S2: { median_f0: null, voiced_seconds: 0, gender: null } };
    await dubs.setSpeakerPitch(dub.id, pitch);
    expect((await dubs.dubById(dub.id))!.speakerPitch).toEqual(pitch);
    await dubs.setSpeakerPitch(dub.id, { S1: pitch.S1 });
    expect((await dubs.dubById(dub.id))!.speakerPitch).toEqual({ S1: pitch.S1 });
  });

  it('sets lines in time order with their originals, and never gives a line id twice', async () => {
    const dubs = store();
    const dub = newDub(await session(backend().sql));
    await dubs.insertDub(dub, 'r0001.wav');
    await dubs.setLines(dub.id, [
      { id: 2, speaker: 'S2', start: 4, end: 6.5, text: 'Second', voice: null, words: [] },
      { id: 1, speaker: 'S1', start: 0.5, end: 1.4, text: 'Hello there', voice: 'festival:kal', words },
    ]);
    const lines = await dubs.lines(dub.id);
    expect(lines.map((l) => l.id)).toEqual([1, 2]);
    expect(lines[0]).toMatchObject({ speaker: 'S1', start: 0.5, end: 1.4, originalStart: 0.5, originalEnd: 1.4, text: 'Hello there', originalText: 'Hello there' });
    expect(lines[0]).toMatchObject({ voice: 'festival:kal', words, reviewStatus: 'todo', history: [], speed: null });
    // The voice a line was made with is kept beside its voice (a change of voice alone is revoiced).
    expect(lines.map((l) => l.originalVoice)).toEqual(['festival:kal', null]);
    expect((await dubs.dubById(dub.id))!.lineSeq).toBe(2);

    expect(await dubs.takeLineId(dub.id)).toBe(3);
    await dubs.deleteLines(dub.id, [2]);
    // Line 3 was given (and never stored), line 2 was removed: neither comes back.
    expect(await dubs.takeLineId(dub.id)).toBe(4);
    // Setting lines again keeps the counter where it was.
    await dubs.setLines(dub.id, [{ id: 1, speaker: 'S1', start: 0, end: 1, text: 'Only', voice: null, words: [] }]);
    expect((await dubs.lines(dub.id)).map((l) => l.text)).toEqual(['Only']);
    expect(await dubs.takeLineId(dub.id)).toBe(5);

    // Callers taking ids at the same time get different ones.
    const taken = await Promise.all(Array.from({ length: 6 }, () => dubs.transaction((tx) => tx.takeLineId(dub.id))));
    expect(new Set(taken).size).toBe(6);
    expect(Math.min(...taken)).toBe(6);
    await expect(dubs.takeLineId(crypto.randomUUID())).rejects.toThrow(/does not exist/);
  });

  it('sets the hundreds of lines of a long recording, every one as given', async () => {
    const dubs = store();
    const dub = newDub(await session(backend().sql));
    await dubs.insertDub(dub, 'r0001.wav');
    const many = Array.from({ length: 450 }, (_, i) => ({ id: 450 - i, speaker: `S${i % 3}`, start: (450 - i) * 2, end: (450 - i) * 2 + 1.5, text: `line ${450 - i}`, voice: null, words: [] }));
    await dubs.setLines(dub.id, many);
    const lines = await dubs.lines(dub.id);
    expect(lines.map((l) => l.id)).toEqual(Array.from({ length: 450 }, (_, i) => i + 1));
    expect(lines.map((l) => [l.speaker, l.start, l.end, l.text])).toEqual([...many].reverse().map((l) => [l.speaker, l.start, l.end, l.text]));
    expect((await dubs.dubById(dub.id))!.lineSeq).toBe(450);
  });

  it('writes whole lines (inserted or replaced), corrects them, and counts their review statuses', async () => {
    const dubs = store();
    const dub = newDub(await session(backend().sql));
    await dubs.insertDub(dub, 'r0001.wav');
    await dubs.setLines(dub.id, [{ id: 1, speaker: 'S1', start: 0, end: 2, text: 'One two', voice: null, words }]);
    const [original] = await dubs.lines(dub.id);
    const split: LineRecord[] = [
      { ...original!, end: 1, text: 'One', originalVoice: 'festival:kal', history: [{ op: 'split', at: '2026-01-01T00:00:00.000Z', from: [] }], speed: 1.2, reviewStatus: 'approved', updatedAt: 'x' },
      { ...original!, id: 7, start: 1, text: 'two', voice: 'festival:kal', words: [], reviewStatus: 'needs_changes', updatedAt: 'y' },
    ];
    await dubs.putLines(dub.id, split);
    // Written as given, with the revision of the write.
    expect(await dubs.lines(dub.id)).toEqual(split.map((l) => ({ ...l, revision: 1 })));

    await dubs.updateLine(dub.id, { id: 1, text: 'Uno', voice: 'festival:slt', start: 0.1, end: 0.9 });
    let [first] = await dubs.lines(dub.id);
    // Review status and speed stay unless given.
    expect(first).toMatchObject({ text: 'Uno', voice: 'festival:slt', start: 0.1, end: 0.9, originalStart: 0, originalEnd: 2, originalText: 'One two', reviewStatus: 'approved', speed: 1.2 });
    expect(first!.originalVoice).toBe('festival:kal');
    await dubs.updateLine(dub.id, { id: 1, text: 'Uno', voice: null, start: 0.1, end: 0.9, reviewStatus: 'todo', speed: null });
    [first] = await dubs.lines(dub.id);
    expect(first).toMatchObject({ voice: null, reviewStatus: 'todo', speed: null });

    expect(await dubs.reviewCounts(dub.id)).toEqual({ todo: 1, needs_changes: 1, approved: 0 });
    await dubs.setReviewStatus(dub.id, 7, 'approved');
    expect(await dubs.reviewCounts(dub.id)).toEqual({ todo: 1, needs_changes: 0, approved: 1 });
    expect(await dubs.reviewCounts(crypto.randomUUID())).toEqual({ todo: 0, needs_changes: 0, approved: 0 });
  });

  // ---- dub takes and line revisions ----
  it('raises the lines revision with every write of lines, and a written line keeps the revision of its write', async () => {
    const dubs = store();
    const dub = newDub(await session(backend().sql));
    await dubs.insertDub(dub, 'r0001.wav');
    await dubs.setLines(dub.id, [
      { id: 1, speaker: 'S1', start: 0, end: 2, text: 'One', voice: null, words: [] },
      { id: 2, speaker: 'S1', start: 3, end: 4, text: 'Two', voice: null, words: [] },
    ]);
    const revisions = async () => Object.fromEntries((await dubs.lines(dub.id)).map((l) => [l.id, l.revision]));
    expect((await dubs.dubById(dub.id))!.linesRevision).toBe(0);
    expect(await revisions()).toEqual({ 1: 0, 2: 0 });

    await dubs.updateLine(dub.id, { id: 1, text: 'Uno', voice: null, start: 0, end: 2 });
    expect(await revisions()).toEqual({ 1: 1, 2: 0 });
    await dubs.setReviewStatus(dub.id, 2, 'approved');
    expect(await revisions()).toEqual({ 1: 1, 2: 2 });
    // A line written whole (undo puts back a snapshot with an old revision) gets the write's revision, not the snapshot's.
    const [one] = await dubs.lines(dub.id);
    await dubs.putLines(dub.id, [{ ...one!, text: 'One', revision: 0 }, { ...one!, id: 9, start: 5, end: 6, revision: 0 }]);
    expect(await revisions()).toEqual({ 1: 3, 2: 2, 9: 3 });
    await dubs.deleteLines(dub.id, [9]);
    expect((await dubs.dubById(dub.id))!.linesRevision).toBe(4);
    expect(await revisions()).toEqual({ 1: 3, 2: 2 });

    // Writers that hold the dub each get their own revision.
    await Promise.all(
      [1, 2, 1, 2].map((id, i) =>
        dubs.transaction(async (tx) => {
          await tx.lockDub(dub.id);
          await tx.updateLine(dub.id, { id, text: `edit ${i}`, voice: null, start: id === 1 ? 0 : 3, end: id === 1 ? 2 : 4 });
        }),
      ),
    );
    expect((await dubs.dubById(dub.id))!.linesRevision).toBe(8);
    // Which writer takes the lock first is the database's choice: the last one's line has 8, the other line one of 5–7.
    const [older, newest] = Object.values(await revisions()).sort((a, b) => a - b);
    expect(newest).toBe(8);
    expect(older).toBeGreaterThanOrEqual(5);
    expect(older).toBeLessThanOrEqual(7);
    // A failed transaction raises nothing.
    await expect(
      dubs.transaction(async (tx) => {
        await tx.setReviewStatus(dub.id, 1, 'needs_changes');
        throw new Error('no');
      }),
    ).rejects.toThrow('no');
    expect((await dubs.dubById(dub.id))!.linesRevision).toBe(8);
  });
  it('numbers a line’s takes, follows their status and render, and names the take a revision put in', async () => {
    const dubs = store();
    const dub = newDub(await session(backend().sql));
    await dubs.insertDub(dub, 'r0001.wav');
    await dubs.setLines(dub.id, [{ id: 1, speaker: 'S1', start: 0, end: 2, text: 'One', voice: null, words: [] }]);
    const plan = { lineId: 1, speaker: 'S1', text: 'One', voice: 'flite/slt', start: 0, end: 2, originalStart: 0, originalEnd: 2, nextStart: 10, previousEnd: 0, speed: null } as PlannedLine;
    const job = crypto.randomUUID();
    const asked = (voice: string, speed: number | null) => ({ id: crypto.randomUUID(), jobId: job, voice, speed, plan: { ...plan, voice, speed }, baseRevision: 1 });
    const first = await dubs.insertTakes(dub.id, 1, [asked('flite/slt', null), asked('flite/rms', 1.1)]);
    expect(first.map((t) => [t.number, t.voice, t.speed, t.status, t.render, t.lineId, t.baseRevision])).toEqual([
      [1, 'flite/slt', null, 'queued', null, 1, 1],
      [2, 'flite/rms', 1.1, 'queued', null, 1, 1],
    ]);
    const later = await dubs.insertTakes(dub.id, 1, [{ ...asked('flite/awb', 0.9), jobId: 'other' }]);
    expect(later.map((t) => t.number)).toEqual([3]);
    expect((await dubs.takesOfJob(job)).map((t) => t.number)).toEqual([1, 2]);
    await dubs.setTakeStatus(first[0]!.id, 'rendering');
    await dubs.setTakeStatus(first[0]!.id, 'ready', { render: render(1) });
    await dubs.setTakeStatus(first[1]!.id, 'failed', { error: 'no voice' });
    const [one, two] = await dubs.takes(dub.id, 1);
    expect(one).toMatchObject<Partial<TakeRecord>>({ status: 'ready', render: render(1), error: null, plan: { ...plan } });
    expect(one!.finishedAt).not.toBeNull();
    expect(two).toMatchObject({ status: 'failed', error: 'no voice', render: null });
    expect(await dubs.take(dub.id, first[0]!.id)).toEqual(one);
    expect(await dubs.take(crypto.randomUUID(), first[0]!.id)).toBeNull();
    expect(await dubs.takes(dub.id, 2)).toEqual([]);

    await dubs.insertRevision(dub.id, { number: 2, base: 1, source: 'take', revoiceId: null, takeId: one!.id, fileName: 'r0002.wav', renders: {}, linesRevoiced: [1] });
    expect(await dubs.revision(dub.id, 2)).toMatchObject({ source: 'take', takeId: one!.id, revoiceId: null });
    expect(await dubs.revision(dub.id, 1)).toMatchObject({ source: 'upload', takeId: null });

    // Deleting takes never deletes one a revision names; it says which it deleted; a status set on a deleted take says so.
    expect((await dubs.dubTakes(dub.id)).map((t) => t.number)).toEqual([1, 2, 3]);
    const deleted = await dubs.deleteTakes(dub.id, [one!.id, two!.id, crypto.randomUUID()]);
    expect(deleted).toEqual([two!.id]);
    expect(await dubs.deleteTakes(crypto.randomUUID(), [later[0]!.id])).toEqual([]);
    expect((await dubs.dubTakes(dub.id)).map((t) => t.id)).toEqual([one!.id, later[0]!.id]);
    expect(await dubs.setTakeStatus(two!.id, 'ready', { render: render(1) })).toBe(false);
    expect(await dubs.setTakeStatus(later[0]!.id, 'rendering')).toBe(true);
    await dubs.deleteDub(dub.id);
    expect(await count(backend().sql, 'dub_line_takes')).toBe(0);
  });

  it('keeps where a take came from: synthesized unless recorded, and the column refuses anything else', async () => {
    const dubs = store();
    const dub = newDub(await session(backend().sql));
    await dubs.insertDub(dub, 'r0001.wav');
    await dubs.setLines(dub.id, [{ id: 1, speaker: 'S1', start: 0, end: 2, text: 'One', voice: null, words: [] }]);
    const plan = { lineId: 1, speaker: 'S1', text: 'One', voice: 'flite/slt', start: 0, end: 2, originalStart: 0, originalEnd: 2, nextStart: 10, previousEnd: 0, speed: null } as PlannedLine;
    const take = (source?: 'synthesized' | 'recorded') => ({ id: crypto.randomUUID(), jobId: crypto.randomUUID(), voice: 'flite/slt', speed: null, plan, baseRevision: 1, ...(source ? { source } : {}) });
    const [synth] = await dubs.insertTakes(dub.id, 1, [take()]);
    const [recorded] = await dubs.insertTakes(dub.id, 1, [take('recorded')]);
    expect(synth!.source).toBe('synthesized');
    expect(recorded!.source).toBe('recorded');
    expect((await dubs.takes(dub.id, 1)).map((t) => [t.number, t.source])).toEqual([
      [1, 'synthesized'],
      [2, 'recorded'],
    ]);
    await expect(dubs.insertTakes(dub.id, 1, [{ ...take(), source: 'sung' as never }])).rejects.toThrow();
  });
  // ---- end of the dub takes block ----

  it('keeps notes per line, oldest first', async () => {
    const dubs = store();
    const dub = newDub(await session(backend().sql));
    await dubs.insertDub(dub, 'r0001.wav');
    const at = (ms: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, 0, ms)).toISOString();
    const notes = [
      { id: crypto.randomUUID(), lineId: 2, author: 'ana', text: 'Too fast', createdAt: at(5) },
      { id: crypto.randomUUID(), lineId: 1, author: 'ben', text: 'Check the name', createdAt: at(1) },
      { id: crypto.randomUUID(), lineId: 1, author: 'ana', text: 'Fixed', createdAt: at(9) },
    ];
    for (const note of notes) await dubs.insertNote(dub.id, note);
    expect(await dubs.notes(dub.id)).toEqual([notes[1], notes[0], notes[2]]);
    expect(await dubs.notes(dub.id, 1)).toEqual([notes[1], notes[2]]);
    expect(await dubs.notes(dub.id, 3)).toEqual([]);
  });

  it('records edits in order, marks them undone and redone, and a new edit ends the redo', async () => {
    const dubs = store();
    const dub = newDub(await session(backend().sql));
    await dubs.insertDub(dub, 'r0001.wav');
    await dubs.setLines(dub.id, [{ id: 1, speaker: 'S1', start: 0, end: 2, text: 'One', voice: null, words }]);
    const [line] = await dubs.lines(dub.id);
    const changed = { ...line!, text: 'Uno' };
    expect(await dubs.insertEdit(dub.id, { op: 'correct', author: 'ana', before: [line!], after: [changed] })).toBe(1);
    expect(await dubs.insertEdit(dub.id, { op: 'split', author: 'ben', before: [changed], after: [changed, { ...changed, id: 2 }] })).toBe(2);
    const edits = await dubs.edits(dub.id);
    expect(edits.map((e) => [e.seq, e.op, e.author, e.undone])).toEqual([
      [1, 'correct', 'ana', false],
      [2, 'split', 'ben', false],
    ]);
    expect(edits[0]!.before).toEqual([line]);
    expect(edits[1]!.after.map((l) => l.id)).toEqual([1, 2]);

    await dubs.setEditUndone(dub.id, 2, true);
    await dubs.setEditUndone(dub.id, 1, true);
    expect((await dubs.edits(dub.id)).map((e) => e.undone)).toEqual([true, true]);
    await dubs.setEditUndone(dub.id, 1, false); // redo of the first
    expect((await dubs.edits(dub.id)).map((e) => e.undone)).toEqual([false, true]);
    // A new edit drops the undone one after it: its number is taken again, by the new edit.
    expect(await dubs.insertEdit(dub.id, { op: 'merge', author: 'ana', before: [], after: [] })).toBe(2);
    expect((await dubs.edits(dub.id)).map((e) => [e.seq, e.op, e.undone])).toEqual([
      [1, 'correct', false],
      [2, 'merge', false],
    ]);
  });

  it('lets edits of one dub take turns when they hold it', async () => {
    const dubs = store();
    const dub = newDub(await session(backend().sql));
    await dubs.insertDub(dub, 'r0001.wav');
    const seqs = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        dubs.transaction(async (tx) => {
          expect(await tx.lockDub(dub.id)).toBe(true);
          return tx.insertEdit(dub.id, { op: 'correct', author: `editor ${i}`, before: [], after: [] });
        }),
      ),
    );
    expect([...seqs].sort()).toEqual([1, 2, 3, 4, 5]);
    expect(await dubs.transaction((tx) => tx.lockDub(crypto.randomUUID()))).toBe(false);
  });

  it('numbers revisions, refuses a number in use and keeps the first', async () => {
    const dubs = store();
    const dub = newDub(await session(backend().sql));
    await dubs.insertDub(dub, 'r0001.wav');
    expect(await dubs.nextRevisionNumber(dub.id)).toBe(2);
    const revision = { number: 2, base: 1, source: 'revoice' as const, revoiceId: crypto.randomUUID(), fileName: 'r0002.wav', renders: { 3: render(3) }, linesRevoiced: [3] };
    await dubs.insertRevision(dub.id, revision);
    expect(await dubs.revision(dub.id, 2)).toMatchObject(revision);
    expect(await dubs.nextRevisionNumber(dub.id)).toBe(3);
    await expect(dubs.insertRevision(dub.id, { ...revision, fileName: 'other.wav', linesRevoiced: [] })).rejects.toBeInstanceOf(RevisionTaken);
    expect(await dubs.revision(dub.id, 2)).toMatchObject({ fileName: 'r0002.wav', linesRevoiced: [3] });
    expect((await dubs.revisions(dub.id)).map((r) => r.number)).toEqual([1, 2]);
    expect(await dubs.revision(dub.id, 9)).toBeNull();
  });

  it('records revoices, their status and their rendered lines', async () => {
    const dubs = store();
    const dub = newDub(await session(backend().sql));
    await dubs.insertDub(dub, 'r0001.wav');
    const plan: PlannedLine[] = [{ lineId: 1, speaker: 'S1', text: 'One', voice: 'festival:slt', start: 0, end: 1, originalStart: 0, originalEnd: 1, nextStart: 2, previousEnd: 0, speed: null }];
    const first = { id: crypto.randomUUID(), dubId: dub.id, jobId: crypto.randomUUID(), baseRevision: 1, plan };
    await dubs.insertRevoice(first);
    expect(await dubs.revoice(first.id)).toMatchObject({ ...first, status: 'queued', revision: null, error: null, finishedAt: null });
    expect((await dubs.activeRevoice(dub.id))!.id).toBe(first.id);

    await dubs.setRevoiceStatus(first.id, 'running');
    await dubs.insertCheckpoint(first.id, { lineId: 4, render: render(4), patchFile: 'line-4.patch', attempt: 2 });
    await dubs.insertCheckpoint(first.id, { lineId: 1, render: render(1), patchFile: 'line-1.patch', attempt: 1 });
    expect(await dubs.checkpoints(first.id)).toEqual([
      { lineId: 1, render: render(1), patchFile: 'line-1.patch', attempt: 1 },
      { lineId: 4, render: render(4), patchFile: 'line-4.patch', attempt: 2 },
    ]);
    // A crash leaves it running: the next start queues it again.
    await dubs.recoverInterrupted();
    expect((await dubs.revoice(first.id))!.status).toBe('queued');

    await dubs.setRevoiceStatus(first.id, 'complete', { revision: 2 });
    const done = (await dubs.revoice(first.id))!;
    expect(done).toMatchObject({ status: 'complete', revision: 2, error: null });
    expect(done.finishedAt).not.toBeNull();
    expect(await dubs.activeRevoice(dub.id)).toBeNull();

    await new Promise((r) => setTimeout(r, 5));
    const second = { ...first, id: crypto.randomUUID(), jobId: crypto.randomUUID(), baseRevision: 2 };
    await dubs.insertRevoice(second);
    await dubs.setRevoiceStatus(second.id, 'failed', { error: 'The voice engine stopped.' });
    expect(await dubs.revoice(second.id)).toMatchObject({ status: 'failed', error: 'The voice engine stopped.', revision: null });
    expect((await dubs.revoices(dub.id)).map((r) => r.id)).toEqual([second.id, first.id]);
    expect(await dubs.revoice(crypto.randomUUID())).toBeNull();
  });

  it('deletes a dub with everything under it, and a deleted recording takes its dubs along', async () => {
    const { sql } = backend();
    const dubs = store();
    const sessionId = await session(sql);
    const fill = async (dub: NewDub) => {
      await dubs.insertDub(dub, 'r0001.wav');
      await dubs.setLines(dub.id, [{ id: 1, speaker: 'S1', start: 0, end: 1, text: 'One', voice: null, words: [] }]);
      await dubs.insertNote(dub.id, { id: crypto.randomUUID(), lineId: 1, author: 'ana', text: 'n', createdAt: new Date().toISOString() });
      await dubs.insertEdit(dub.id, { op: 'correct', author: 'ana', before: [], after: [] });
      await dubs.insertRevision(dub.id, { number: 2, base: 1, source: 'revoice', revoiceId: null, fileName: 'r0002.wav', renders: {}, linesRevoiced: [] });
      const revoice = crypto.randomUUID();
      await dubs.insertRevoice({ id: revoice, dubId: dub.id, jobId: crypto.randomUUID(), baseRevision: 1, plan: [] });
      await dubs.insertCheckpoint(revoice, { lineId: 1, render: render(1), patchFile: 'line-1.patch', attempt: 1 });
    };
    const kept = newDub(sessionId);
    const removed = newDub(sessionId);
    await fill(kept);
    await fill(removed);
    const tables = ['dubs', 'dub_lines', 'dub_line_notes', 'dub_line_edits', 'dub_revisions', 'dub_revoices', 'dub_revoice_lines'];
    const counts = async () => Promise.all(tables.map((t) => count(sql, t)));
    expect(await counts()).toEqual([2, 2, 2, 2, 4, 2, 2]);

    await dubs.deleteDub(removed.id);
    expect(await counts()).toEqual([1, 1, 1, 1, 2, 1, 1]);
    expect(await dubs.dubById(removed.id)).toBeNull();
    expect(await dubs.lines(kept.id)).toHaveLength(1);

    await sql.run('DELETE FROM sessions WHERE id = ?', [sessionId]);
    expect(await counts()).toEqual([0, 0, 0, 0, 0, 0, 0]);
  });

  it('keeps nothing of a transaction that fails', async () => {
    const dubs = store();
    const dub = newDub(await session(backend().sql));
    await expect(
      dubs.transaction(async (tx) => {
        await tx.insertDub(dub, 'r0001.wav');
        await tx.setLines(dub.id, [{ id: 1, speaker: 'S1', start: 0, end: 1, text: 'One', voice: null, words: [] }]);
        throw new Error('the upload was cut short');
      }),
    ).rejects.toThrow('cut short');
    expect(await dubs.dubById(dub.id)).toBeNull();
    expect(await count(backend().sql, 'dub_revisions')).toBe(0);
    expect(await dubs.lines(dub.id)).toEqual([]);
  });

  it('commits a dub and the job queued for it together, or neither', async () => {
    const { sql } = backend();
    const dubs = store();
    const jobs = new JobRunner(new SqlJobStore(sql));
    const sessionId = await session(sql);
    const failed = newDub(sessionId);
    await expect(
      dubs.transaction(async (tx, txJobs) => {
        await tx.insertDub(failed, 'r0001.wav');
        await jobs.enqueue('dub-prepare', sessionId, { dub_id: failed.id }, txJobs);
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(await dubs.dubById(failed.id)).toBeNull();
    expect(await count(sql, 'jobs')).toBe(0);

    const queued = newDub(sessionId, { status: 'preparing' });
    const jobId = await dubs.transaction(async (tx, txJobs) => {
      await tx.insertDub(queued, 'r0001.wav');
      return jobs.enqueue('dub-prepare', sessionId, { dub_id: queued.id }, txJobs);
    });
    expect(await dubs.dubById(queued.id)).not.toBeNull();
    expect(await jobs.get(jobId)).toMatchObject({ kind: 'dub-prepare', status: 'queued', payload: { dub_id: queued.id } });

    // The runner's restart counts a revoice's rendered lines.
    const revoice = crypto.randomUUID();
    await dubs.insertRevoice({ id: revoice, dubId: queued.id, jobId, baseRevision: 1, plan: [] });
    expect(await dubs.checkpointCount(revoice)).toBe(0);
    await dubs.insertCheckpoint(revoice, { lineId: 1, render: render(1), patchFile: 'line-1.patch', attempt: 1 });
    await dubs.insertCheckpoint(revoice, { lineId: 2, render: render(2), patchFile: 'line-2.patch', attempt: 1 });
    expect(await dubs.checkpointCount(revoice)).toBe(2);
  });
});
