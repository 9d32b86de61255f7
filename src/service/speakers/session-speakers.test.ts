import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../storage/database';
import { ProjectStore } from '../storage/project-store';
import { SessionStore } from '../storage/session-store';
import type { Transcript } from '../speech/types';
import { PROFILE_DIMENSIONS } from '../speech/speakers/profile';
import { SpeakerDirectory } from './speaker-directory';
import { SessionSpeakerEditor } from './session-speakers';
import { spectralVoiceMatcher } from './voice-matcher';

/** A profile pointing one way in profile space: different `axis` → dissimilar voices. */
const voice = (axis: number, wobble = 0) => Array.from({ length: PROFILE_DIMENSIONS }, (_, i) => (i === axis ? 10 : 1) + wobble * (i % 3));

function setup() {
  const db = openDatabase(':memory:');
  const projects = new ProjectStore(db);
  const sessions = new SessionStore(db);
  const project = projects.create('p', 'P');
  const directory = new SpeakerDirectory(db, projects, sessions, spectralVoiceMatcher);
  const editor = new SessionSpeakerEditor(db, projects, sessions, spectralVoiceMatcher);
  const addSession = (profiles: Record<string, number[]>, seconds: Record<string, number>) => {
    const id = crypto.randomUUID();
    sessions.insert({ id, projectId: project.id, fileName: 'a.flac', storedName: 'original.flac', duration: 60, format: {} as never, language: 'en' });
    let t = 0;
    const segments = Object.entries(seconds).map(([speaker, s], i) => {
      const seg = { id: i, speaker, start: t, end: t + s, text: 'x', words: [], avgLogprob: 0 };
      t += s;
      return seg;
    });
    const transcript: Transcript = { language: 'en', duration: t, text: '', segments, speakers: Object.keys(seconds), engine: 'test', profiles };
    sessions.complete(id, transcript);
    directory.enrol(id);
    return id;
  };
  return { db, projects, sessions, project, directory, editor, addSession };
}

describe('SessionSpeakerEditor', () => {
  it('a merged-away voice leaves the map; its project speaker, with no other evidence and no name, goes', () => {
    const { sessions, projects, project, editor, directory, addSession } = setup();
    const id = addSession({ S1: voice(0), S2: voice(5) }, { S1: 10, S2: 4 });
    expect(projects.speakers(project.id)).toHaveLength(2);
    const t = sessions.transcript(id)!;
    const merged: Transcript = { ...t, speakers: ['S1'], segments: t.segments.map((s) => ({ ...s, speaker: 'S1' })) };
    sessions.complete(id, merged);
    editor.applyEdit(id, merged);
    expect(Object.keys(directory.speakerMap(id))).toEqual(['S1']);
    expect(projects.speakers(project.id).map((s) => s.name)).toEqual(['Speaker 1']);
  });

  it('keeps a project speaker the user named even when no recording names it any more', () => {
    const { sessions, projects, project, editor, directory, addSession } = setup();
    const id = addSession({ S1: voice(0), S2: voice(5) }, { S1: 10, S2: 4 });
    const s2 = directory.speakerMap(id).S2!;
    projects.renameSpeaker(project.id, s2.speaker_id, 'Ada');
    const t = sessions.transcript(id)!;
    const merged: Transcript = { ...t, speakers: ['S1'], segments: t.segments.map((s) => ({ ...s, speaker: 'S1' })) };
    sessions.complete(id, merged);
    editor.applyEdit(id, merged);
    expect(projects.speakers(project.id).map((s) => s.name)).toEqual(['Speaker 1', 'Ada']);
  });

  it('pools a project speaker again from the recordings that name it, weighted by seconds', () => {
    const { sessions, projects, project, editor, directory, addSession } = setup();
    const a = addSession({ S1: voice(0) }, { S1: 10 });
    addSession({ S1: voice(0, 0.01) }, { S1: 30 });
    const speaker = directory.speakerMap(a).S1!.speaker_id;
    expect(projects.speakers(project.id)).toHaveLength(1);
    // The first recording's voice is re-measured after an edit: the pool follows, with its new seconds.
    const t = sessions.transcript(a)!;
    const remeasured = { ...t, profiles: { S1: voice(0, 0.5) } };
    sessions.complete(a, remeasured);
    editor.reconcile(a);
    const pooled = projects.speakersWithProfiles(project.id).find((s) => s.id === speaker)!;
    const expected = spectralVoiceMatcher.merge(voice(0, 0.5), 10, voice(0, 0.01), 30);
    pooled.profile.forEach((v, i) => expect(v).toBeCloseTo(expected[i]!, 9));
    expect(pooled.evidence_seconds).toBe(40);
    expect(pooled.clip_count).toBe(2);
  });

  it('maps a new voice to a known project speaker it matches, else to a new one; an editor’s choice stays', () => {
    const { sessions, projects, project, editor, directory, addSession } = setup();
    addSession({ S1: voice(9) }, { S1: 20 }); // a voice the project knows from elsewhere
    const id = addSession({ S1: voice(0), S2: voice(5) }, { S1: 10, S2: 4 });
    const known = projects.speakers(project.id).find((s) => s.number === 1)!;
    const t = sessions.transcript(id)!;
    const withNew: Transcript = {
      ...t,
      speakers: ['S1', 'S2', 'S3', 'S4'],
      segments: [...t.segments, { id: 2, speaker: 'S3', start: 14, end: 16, text: 'x', words: [], avgLogprob: 0 }, { id: 3, speaker: 'S4', start: 16, end: 18, text: 'y', words: [], avgLogprob: 0 }],
      profiles: { ...t.profiles, S3: voice(9, 0.001), S4: voice(12) },
    };
    sessions.complete(id, withNew);
    editor.reconcile(id);
    const map = directory.speakerMap(id);
    expect(map.S3).toMatchObject({ speaker_id: known.id, matched: true });
    expect(map.S4).toMatchObject({ matched: false, name: 'Speaker 4' });
  });

  it('restores the map a revision had, bringing back a project speaker removed since', () => {
    const { sessions, projects, project, editor, directory, addSession } = setup();
    const id = addSession({ S1: voice(0), S2: voice(5) }, { S1: 10, S2: 4 });
    const before = directory.speakerMap(id);
    const snapshot = editor.snapshot(id);
    const original = sessions.transcript(id)!;
    const merged: Transcript = { ...original, speakers: ['S1'], segments: original.segments.map((s) => ({ ...s, speaker: 'S1' })) };
    sessions.complete(id, merged);
    editor.applyEdit(id, merged);
    expect(projects.speakers(project.id)).toHaveLength(1);
    sessions.complete(id, original);
    editor.restoreSnapshot(id, original, snapshot);
    expect(directory.speakerMap(id)).toEqual(before);
    expect(projects.speakers(project.id).map((s) => s.name)).toEqual(['Speaker 1', 'Speaker 2']);
  });

  // ---- editor's basics (issue 33): "not this person" ----
  it('rejects a voice match: the voice takes a new project speaker, and the rejected one loses its evidence', () => {
    const { projects, project, editor, directory, addSession } = setup();
    const a = addSession({ S1: voice(0) }, { S1: 10 });
    const b = addSession({ S1: voice(0, 0.01) }, { S1: 30 });
    const known = directory.speakerMap(a).S1!;
    expect(directory.speakerMap(b).S1).toMatchObject({ speaker_id: known.speaker_id, matched: true });
    const now = editor.rejectMatch(b, 'S1', known.speaker_id);
    expect(now).not.toBe(known.speaker_id);
    expect(directory.speakerMap(b).S1).toMatchObject({ speaker_id: now, matched: false, name: 'Speaker 2' });
    const speakers = projects.speakersWithProfiles(project.id);
    expect(speakers.find((s) => s.id === known.speaker_id)).toMatchObject({ clip_count: 1, evidence_seconds: 10, profile: voice(0) });
    expect(speakers.find((s) => s.id === now)).toMatchObject({ clip_count: 1, evidence_seconds: 30 });
  });

  it('remembers the rejection: enrolled again, the voice is not matched to that speaker', () => {
    const { editor, directory, addSession } = setup();
    const a = addSession({ S1: voice(0) }, { S1: 10 });
    const b = addSession({ S1: voice(0, 0.01) }, { S1: 30 });
    const rejected = directory.speakerMap(a).S1!.speaker_id;
    editor.rejectMatch(b, 'S1');
    directory.enrol(b);
    expect(directory.speakerMap(b).S1!.speaker_id).not.toBe(rejected);
  });

  it('refuses to reject what is not a voice match, a stale speaker and an unknown label, changing nothing', () => {
    const { editor, directory, addSession } = setup();
    const a = addSession({ S1: voice(0) }, { S1: 10 });
    const b = addSession({ S1: voice(0, 0.01), S2: voice(7) }, { S1: 30, S2: 5 });
    const before = directory.speakerMap(b);
    expect(() => editor.rejectMatch(b, 'S2')).toThrow(expect.objectContaining({ kind: 'conflict', detail: { code: 'not_a_match' } }));
    expect(() => editor.rejectMatch(b, 'S1', directory.speakerMap(b).S2!.speaker_id)).toThrow(
      expect.objectContaining({ kind: 'conflict', detail: { code: 'stale_match' } }),
    );
    expect(() => editor.rejectMatch(b, 'S9')).toThrow(expect.objectContaining({ kind: 'not_found' }));
    expect(directory.speakerMap(b)).toEqual(before);
    expect(directory.speakerMap(a).S1!.speaker_id).toBe(before.S1!.speaker_id);
  });
});
