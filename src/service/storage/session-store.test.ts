import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { openDatabase } from './database';
import { SqlProjectStore } from './project-store';
import { SqliteSql } from './sql/sqlite-sql';
import { SessionStore } from './session-store';
import { TranscriptRevisionStore } from './revision-store';
import { createProjectSpeaker } from '../speakers/project-speakers';
import type { Transcript } from '../speech/types';

function transcript(text: string): Transcript {
  const words = [{ word: text, start: 0.1, end: 0.5, speaker: 'S1', confidence: 0.9 }];
  return {
    language: 'en',
    duration: 1,
    text,
    segments: [{ id: 0, speaker: 'S1', start: 0, end: 1, text, words, avgLogprob: -1 }],
    speakers: ['S1'],
    engine: 'test',
  };
}

async function fixture() {
  const db = openDatabase(':memory:');
  const projects = new SqlProjectStore(new SqliteSql(db), db);
  const project = await projects.create(`p${crypto.randomUUID()}`, 'P');
  const sessions = new SessionStore(db);
  const add = () => {
    const id = crypto.randomUUID();
    sessions.insert({ id, projectId: project.id, fileName: 'a.flac', storedName: 'original.flac', duration: 1, format: {} as never, language: 'en' });
    return id;
  };
  return { db, projects, project, sessions, add, id: add() };
}

describe('SessionStore.documentBytes', () => {
  it('is the session with its speaker map, before and after the transcript exists', async () => {
    const { sessions, id } = await fixture();
    const map = {
      S1: { speaker_id: crypto.randomUUID(), number: 1, name: 'Ann', similarity: 1, matched: true },
    };
    const expected = () => JSON.parse(JSON.stringify({ ...sessions.get(id), speaker_map: map }));
    const doc = () => JSON.parse(sessions.documentBytes(sessions.summary(id)!, map).toString('utf8'));
    expect(doc()).toEqual(expected());
    expect(doc().transcript).toBeNull();
    sessions.complete(id, transcript('hello — ünïcode'));
    expect(doc()).toEqual(expected());
    expect(doc().transcript.segments[0].text).toBe('hello — ünïcode');
    expect(doc().transcript.segments[0]).not.toHaveProperty('avgLogprob');
  });
});

describe('the session change counter (migration 8 triggers)', () => {
  /** Runs `write` and says whether the session's counter moved. */
  const bumps = (f: Awaited<ReturnType<typeof fixture>>, id: string, write: () => void) => {
    const before = f.sessions.changeSeq(id);
    write();
    return f.sessions.changeSeq(id)! > before!;
  };

  it('rises on every write to the session row, through any path', async () => {
    const f = await fixture();
    const { sessions, id, db } = f;
    expect(sessions.changeSeq(id)).toBe(0);
    expect(bumps(f, id, () => sessions.setProgress(id, 'running', 0.5, 'recognizing'))).toBe(true);
    expect(bumps(f, id, () => sessions.setMedia(id, { timebase: null } as never))).toBe(true);
    expect(bumps(f, id, () => sessions.complete(id, transcript('a')))).toBe(true);
    // A transcript revision (speaker fixes by hand) rewrites the stored text.
    const revisions = new TranscriptRevisionStore(db, sessions);
    expect(bumps(f, id, () => revisions.append(id, transcript('b'), { op: 'merge', from: 'S1', into: 'S1' } as never, {}))).toBe(true);
    expect(bumps(f, id, () => db.prepare('UPDATE sessions SET transcript_json = ? WHERE id = ?').run(JSON.stringify(transcript('c')), id))).toBe(true);
    const other = f.add();
    sessions.setProgress(other, 'running', 0.1, 'recognizing');
    db.prepare("INSERT INTO jobs (id, kind, session_id, status, created_at) VALUES (?, 'transcribe', ?, 'running', ?)").run(crypto.randomUUID(), other, new Date().toISOString());
    expect(bumps(f, other, () => sessions.recoverInterrupted())).toBe(true);
    // One write raises it by one: the trigger's own update does not fire it again.
    const seq = sessions.changeSeq(id)!;
    sessions.setProgress(id, 'complete', 1, 'complete');
    expect(sessions.changeSeq(id)).toBe(seq + 1);
  });

  it("rises when the speaker map, the project or the project's speakers change, and only for that project", async () => {
    const f = await fixture();
    const { db, projects, project, sessions, id } = f;
    const elsewhere = await projects.create(`q${crypto.randomUUID()}`, 'Q');
    const stranger = crypto.randomUUID();
    sessions.insert({ id: stranger, projectId: elsewhere.id, fileName: 'b.flac', storedName: 'original.flac', duration: 1, format: {} as never, language: 'en' });
    let speaker = '';
    expect(bumps(f, id, () => (speaker = createProjectSpeaker(db, project.id, [1, 2], 3, 1)))).toBe(true);
    expect(bumps(f, id, () => db.prepare('INSERT INTO session_speakers (session_id, label, speaker_id, similarity, matched, seconds) VALUES (?, ?, ?, 1, 1, 3)').run(id, 'S1', speaker))).toBe(true);
    expect(bumps(f, id, () => db.prepare("UPDATE session_speakers SET assigned = 'editor' WHERE session_id = ?").run(id))).toBe(true);
    expect(bumps(f, id, () => projects.renameSpeaker(project.id, speaker, 'Ann'))).toBe(true);
    expect(bumps(f, id, () => projects.setVocabulary(project.id, ['Takeline']))).toBe(true);
    expect(bumps(f, id, () => db.prepare('DELETE FROM session_speakers WHERE session_id = ?').run(id))).toBe(true);
    expect(bumps(f, id, () => db.prepare('DELETE FROM project_speakers WHERE id = ?').run(speaker))).toBe(true);
    expect(sessions.changeSeq(stranger)).toBe(0);
  });

  it('is null once the session is deleted (cascades included)', async () => {
    const f = await fixture();
    const speaker = createProjectSpeaker(f.db, f.project.id, [1], 1, 1);
    f.db.prepare('INSERT INTO session_speakers (session_id, label, speaker_id, similarity, matched, seconds) VALUES (?, ?, ?, 1, 1, 3)').run(f.id, 'S1', speaker);
    expect(f.sessions.delete(f.id)).toBe(true);
    expect(f.sessions.changeSeq(f.id)).toBeNull();
  });
});
