import crypto from 'node:crypto';
import { expect, it } from 'vitest';
import { eachBackend } from '../../../test/helpers/sql-backends';
import { openStores } from '../storage/stores';
import type { Transcript } from '../speech/types';
import { PROFILE_DIMENSIONS } from '../speech/speakers/profile';
import { SpeakerDirectory } from './speaker-directory';
import { SessionSpeakerEditor } from './session-speakers';
import { spectralVoiceMatcher } from './voice-matcher';

/** A profile pointing one way in profile space: different `axis` → dissimilar voices. */
const voice = (axis: number, wobble = 0) => Array.from({ length: PROFILE_DIMENSIONS }, (_, i) => (i === axis ? 10 : 1) + wobble * (i % 3));

// The speaker map and the project's voices follow enrolment and edits the same way on both databases.
eachBackend('SessionSpeakerEditor', (backend) => {
  async function setup() {
    const database = openStores(backend().sql);
    const { projects, sessions, speakers } = database;
    const project = await projects.create('p', 'P');
    const directory = new SpeakerDirectory(database, spectralVoiceMatcher);
    const editor = new SessionSpeakerEditor(database, spectralVoiceMatcher);
    const addSession = async (profiles: Record<string, number[]>, seconds: Record<string, number>) => {
      const id = crypto.randomUUID();
      await sessions.insert({ id, projectId: project.id, fileName: 'a.flac', storedName: 'original.flac', duration: 60, format: {} as never, language: 'en' });
      let t = 0;
      const segments = Object.entries(seconds).map(([speaker, s], i) => {
        const seg = { id: i, speaker, start: t, end: t + s, text: 'x', words: [], avgLogprob: 0 };
        t += s;
        return seg;
      });
      const transcript: Transcript = { language: 'en', duration: t, text: '', segments, speakers: Object.keys(seconds), engine: 'test', profiles };
      await sessions.complete(id, transcript);
      await directory.enrol(id);
      return id;
    };
    const names = async () => (await speakers.projectSpeakers(project.id)).map((s) => s.name);
    return { database, sessions, speakers, project, directory, editor, addSession, names };
  }

  it('a merged-away voice leaves the map; its project speaker, with no other evidence and no name, goes', async () => {
    const { database, sessions, editor, directory, addSession, names } = await setup();
    const id = await addSession({ S1: voice(0), S2: voice(5) }, { S1: 10, S2: 4 });
    expect(await names()).toHaveLength(2);
    const t = (await sessions.transcript(id))!;
    const merged: Transcript = { ...t, speakers: ['S1'], segments: t.segments.map((s) => ({ ...s, speaker: 'S1' })) };
    await sessions.complete(id, merged);
    await database.transaction((stores) => editor.applyEdit(stores, id, merged));
    expect(Object.keys(await directory.speakerMap(id))).toEqual(['S1']);
    expect(await names()).toEqual(['Speaker 1']);
  });

  it('keeps a project speaker the user named even when no recording names it any more', async () => {
    const { database, sessions, speakers, project, editor, directory, addSession, names } = await setup();
    const id = await addSession({ S1: voice(0), S2: voice(5) }, { S1: 10, S2: 4 });
    const s2 = (await directory.speakerMap(id)).S2!;
    await speakers.renameProjectSpeaker(project.id, s2.speaker_id, 'Ada');
    const t = (await sessions.transcript(id))!;
    const merged: Transcript = { ...t, speakers: ['S1'], segments: t.segments.map((s) => ({ ...s, speaker: 'S1' })) };
    await sessions.complete(id, merged);
    await database.transaction((stores) => editor.applyEdit(stores, id, merged));
    expect(await names()).toEqual(['Speaker 1', 'Ada']);
  });

  it('pools a project speaker again from the recordings that name it, weighted by seconds', async () => {
    const { sessions, speakers, project, editor, directory, addSession, names } = await setup();
    const a = await addSession({ S1: voice(0) }, { S1: 10 });
    await addSession({ S1: voice(0, 0.01) }, { S1: 30 });
    const speaker = (await directory.speakerMap(a)).S1!.speaker_id;
    expect(await names()).toHaveLength(1);
    // The first recording's voice is re-measured after an edit: the pool follows, with its new seconds.
    const t = (await sessions.transcript(a))!;
    const remeasured = { ...t, profiles: { S1: voice(0, 0.5) } };
    await sessions.complete(a, remeasured);
    await editor.reconcile(a);
    const pooled = (await speakers.projectSpeakersWithProfiles(project.id)).find((s) => s.id === speaker)!;
    // Pooled in the order the store lists the recordings; merging is weighted, so either order agrees closely.
    const expected = spectralVoiceMatcher.merge(voice(0, 0.5), 10, voice(0, 0.01), 30);
    pooled.profile.forEach((v, i) => expect(v).toBeCloseTo(expected[i]!, 6));
    expect(pooled.evidence_seconds).toBe(40);
    expect(pooled.clip_count).toBe(2);
  });

  it('maps a new voice to a known project speaker it matches, else to a new one; an editor’s choice stays', async () => {
    const { sessions, speakers, project, editor, directory, addSession } = await setup();
    await addSession({ S1: voice(9) }, { S1: 20 }); // a voice the project knows from elsewhere
    const id = await addSession({ S1: voice(0), S2: voice(5) }, { S1: 10, S2: 4 });
    const known = (await speakers.projectSpeakers(project.id)).find((s) => s.number === 1)!;
    const t = (await sessions.transcript(id))!;
    const withNew: Transcript = {
      ...t,
      speakers: ['S1', 'S2', 'S3', 'S4'],
      segments: [...t.segments, { id: 2, speaker: 'S3', start: 14, end: 16, text: 'x', words: [], avgLogprob: 0 }, { id: 3, speaker: 'S4', start: 16, end: 18, text: 'y', words: [], avgLogprob: 0 }],
      profiles: { ...t.profiles, S3: voice(9, 0.001), S4: voice(12) },
    };
    await sessions.complete(id, withNew);
    await editor.reconcile(id);
    const map = await directory.speakerMap(id);
    expect(map.S3).toMatchObject({ speaker_id: known.id, matched: true });
    expect(map.S4).toMatchObject({ matched: false, name: 'Speaker 4' });
  });

  it('restores the map a revision had, bringing back a project speaker removed since', async () => {
    const { database, sessions, editor, directory, addSession, names } = await setup();
    const id = await addSession({ S1: voice(0), S2: voice(5) }, { S1: 10, S2: 4 });
    const before = await directory.speakerMap(id);
    const snapshot = await database.transaction((stores) => editor.snapshot(stores, id));
    const original = (await sessions.transcript(id))!;
    const merged: Transcript = { ...original, speakers: ['S1'], segments: original.segments.map((s) => ({ ...s, speaker: 'S1' })) };
    await sessions.complete(id, merged);
    await database.transaction((stores) => editor.applyEdit(stores, id, merged));
    expect(await names()).toHaveLength(1);
    await sessions.complete(id, original);
    await database.transaction((stores) => editor.restoreSnapshot(stores, id, original, snapshot));
    expect(await directory.speakerMap(id)).toEqual(before);
    expect(await names()).toEqual(['Speaker 1', 'Speaker 2']);
  });

  it("numbers a recording's new voices in the order it first hears them, and says where each was first heard", async () => {
    const { directory, addSession, names } = await setup();
    // S2 speaks longer, but S1 speaks first: S1 is the project's first voice.
    const a = await addSession({ S1: voice(0), S2: voice(5) }, { S1: 3, S2: 12 });
    const first = await directory.speakerMap(a);
    expect([first.S1!.number, first.S2!.number]).toEqual([1, 2]);
    expect(await names()).toEqual(['Speaker 1', 'Speaker 2']);
    expect(first.S1!.first_heard_in).toEqual({ session_id: a, file_name: 'a.flac' });
    await new Promise((r) => setTimeout(r, 5));
    // A later recording: its S1 is new (heard first, then S2, the first recording's S2, at length).
    const b = await addSession({ S1: voice(9), S2: voice(5, 0.01) }, { S1: 2, S2: 20 });
    const second = await directory.speakerMap(b);
    expect(second.S2).toMatchObject({ speaker_id: first.S2!.speaker_id, matched: true, number: 2, first_heard_in: { session_id: a } });
    expect(second.S1).toMatchObject({ matched: false, number: 3, first_heard_in: { session_id: b } });
  });

  // ---- editor's basics: "not this person" ----
  it('rejects a voice match: the voice takes a new project speaker, and the rejected one loses its evidence', async () => {
    const { speakers, project, editor, directory, addSession } = await setup();
    const a = await addSession({ S1: voice(0) }, { S1: 10 });
    const b = await addSession({ S1: voice(0, 0.01) }, { S1: 30 });
    const known = (await directory.speakerMap(a)).S1!;
    expect((await directory.speakerMap(b)).S1).toMatchObject({ speaker_id: known.speaker_id, matched: true });
    const now = await editor.rejectMatch(b, 'S1', known.speaker_id);
    expect(now).not.toBe(known.speaker_id);
    expect((await directory.speakerMap(b)).S1).toMatchObject({ speaker_id: now, matched: false, name: 'Speaker 2' });
    const all = await speakers.projectSpeakersWithProfiles(project.id);
    expect(all.find((s) => s.id === known.speaker_id)).toMatchObject({ clip_count: 1, evidence_seconds: 10, profile: voice(0) });
    expect(all.find((s) => s.id === now)).toMatchObject({ clip_count: 1, evidence_seconds: 30 });
  });

  it('remembers the rejection: enrolled again, the voice is not matched to that speaker', async () => {
    const { editor, directory, addSession } = await setup();
    const a = await addSession({ S1: voice(0) }, { S1: 10 });
    const b = await addSession({ S1: voice(0, 0.01) }, { S1: 30 });
    const rejected = (await directory.speakerMap(a)).S1!.speaker_id;
    await editor.rejectMatch(b, 'S1');
    await directory.enrol(b);
    expect((await directory.speakerMap(b)).S1!.speaker_id).not.toBe(rejected);
  });

  it('refuses to reject what is not a voice match, a stale speaker and an unknown label, changing nothing', async () => {
    const { editor, directory, addSession } = await setup();
    const a = await addSession({ S1: voice(0) }, { S1: 10 });
    const b = await addSession({ S1: voice(0, 0.01), S2: voice(7) }, { S1: 30, S2: 5 });
    const before = await directory.speakerMap(b);
    await expect(editor.rejectMatch(b, 'S2')).rejects.toMatchObject({ kind: 'conflict', detail: { code: 'not_a_match' } });
    await expect(editor.rejectMatch(b, 'S1', before.S2!.speaker_id)).rejects.toMatchObject({ kind: 'conflict', detail: { code: 'stale_match' } });
    await expect(editor.rejectMatch(b, 'S9')).rejects.toMatchObject({ kind: 'not_found' });
    expect(await directory.speakerMap(b)).toEqual(before);
    expect((await directory.speakerMap(a)).S1!.speaker_id).toBe(before.S1!.speaker_id);
  });
});

// The studio colours a match's certainty against the service's own threshold, served with the map.
eachBackend('SpeakerDirectory.speakerMap', (backend) => {
  it("serves the matcher's threshold with every entry, and the match decision keeps to it", async () => {
    const database = openStores(backend().sql);
    const project = await database.projects.create('p', 'P');
    const strict = { ...spectralVoiceMatcher, threshold: 0.999 };
    const add = async (directory: SpeakerDirectory, profile: number[]) => {
      const id = crypto.randomUUID();
      await database.sessions.insert({ id, projectId: project.id, fileName: 'a.flac', storedName: 'original.flac', duration: 60, format: {} as never, language: 'en' });
      const segments = [{ id: 0, speaker: 'S1', start: 0, end: 20, text: 'x', words: [], avgLogprob: 0 }];
      await database.sessions.complete(id, { language: 'en', duration: 20, text: '', segments, speakers: ['S1'], engine: 'test', profiles: { S1: profile } });
      await directory.enrol(id);
      return (await directory.speakerMap(id)).S1!;
    };
    const usual = new SpeakerDirectory(database, spectralVoiceMatcher);
    expect((await add(usual, voice(3))).match_threshold).toBe(spectralVoiceMatcher.threshold);
    // A slightly different take of the same voice: similar enough for the usual threshold, not for 0.999.
    const again = await add(usual, voice(3, 0.3));
    expect(again.similarity).toBeGreaterThanOrEqual(spectralVoiceMatcher.threshold);
    expect(again.similarity).toBeLessThan(0.999);
    expect(again).toMatchObject({ matched: true, match_threshold: spectralVoiceMatcher.threshold });
    const strictEntry = await add(new SpeakerDirectory(database, strict), voice(3, 0.3));
    expect(strictEntry).toMatchObject({ matched: false, match_threshold: 0.999 });
  });

});
