import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { openDatabase } from './database';
import { ProjectStore } from './project-store';
import { SessionStore } from './session-store';
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

describe('SessionStore.documentJson', () => {
  const db = openDatabase(':memory:');
  const project = new ProjectStore(db).create('p', 'P');
  const sessions = new SessionStore(db);
  const id = crypto.randomUUID();
  sessions.insert({
    id,
    projectId: project.id,
    fileName: 'a.flac',
    storedName: 'original.flac',
    duration: 1,
    format: {} as never,
    language: 'en',
  });
  const map = {
    S1: { speaker_id: crypto.randomUUID(), number: 1, name: 'Ann', similarity: 1, matched: true },
  };
  const expected = () => JSON.parse(JSON.stringify({ ...sessions.get(id), speaker_map: map }));

  it('is the session with its speaker map, before and after the transcript exists', () => {
    expect(JSON.parse(sessions.documentJson(sessions.summary(id)!, map))).toEqual(expected());
    expect(JSON.parse(sessions.documentJson(sessions.summary(id)!, map)).transcript).toBeNull();
    sessions.complete(id, transcript('hello'));
    const doc = JSON.parse(sessions.documentJson(sessions.summary(id)!, map));
    expect(doc).toEqual(expected());
    expect(doc.transcript.segments[0].text).toBe('hello');
    expect(doc.transcript.segments[0]).not.toHaveProperty('avgLogprob');
  });

  it('follows a transcript rewritten by any writer, not a stale copy', () => {
    sessions.complete(id, transcript('hello'));
    sessions.documentJson(sessions.summary(id)!, map);
    // Another store's connection (as the revision store writes edits) changes the stored text.
    db.prepare('UPDATE sessions SET transcript_json = ? WHERE id = ?').run(
      JSON.stringify(transcript('goodbye')),
      id,
    );
    expect(JSON.parse(sessions.documentJson(sessions.summary(id)!, map)).transcript.segments[0].text).toBe(
      'goodbye',
    );
  });
});
