import { ConflictError, NotFoundError } from '../errors';
import type { Database, Stores } from '../storage/stores';
import type { SpeakerMapRow, SpeakerSnapshot } from '../storage/speaker-store';
import type { Transcript } from '../speech/types';
import type { VoiceMatcher } from './voice-matching';
import { bestKnownVoice, firstAppearance } from './project-speakers';

export type { SpeakerSnapshot } from '../storage/speaker-store';

function secondsByLabel(transcript: Transcript): Map<string, number> {
  const seconds = new Map<string, number>();
  for (const s of transcript.segments) seconds.set(s.speaker, (seconds.get(s.speaker) ?? 0) + (s.end - s.start));
  return seconds;
}

/**
 * Keeps a session's speaker map and the project's voice profiles in step with an editor's speaker fixes.
 * A project speaker's profile is the pool of its sessions' profiles weighted by seconds (what enrolment
 * builds up one recording at a time), so after an edit every project speaker the session touched is pooled
 * again from the sessions that still name it: evidence moved by hand moves with it. Methods that belong
 * inside an edit's transaction take that transaction's stores.
 */
export class SessionSpeakerEditor {
  constructor(
    private readonly database: Database,
    private readonly matcher: VoiceMatcher,
  ) {}

  /** The session's speaker map with enough of each project speaker to bring it back if it is deleted later. */
  snapshot(stores: Stores, sessionId: string): Promise<SpeakerSnapshot> {
    return stores.speakers.snapshot(sessionId);
  }

  /**
   * After restoring a revision: its labels get the project speakers they had then (recreated, same id and
   * name, if an edit since removed them), instead of being matched again as strangers.
   */
  async restoreSnapshot(stores: Stores, sessionId: string, transcript: Transcript, snapshot: SpeakerSnapshot): Promise<void> {
    const { speakers } = stores;
    const changed = new Set((await speakers.map(sessionId)).map((r) => r.speaker_id));
    await speakers.clearMap(sessionId);
    const seconds = secondsByLabel(transcript);
    for (const entry of snapshot.filter((e) => transcript.speakers.includes(e.label))) {
      await speakers.recreateProjectSpeaker(entry);
      await speakers.insertMapping(sessionId, { ...pick(entry), seconds: seconds.get(entry.label) ?? 0 });
      changed.add(entry.speaker_id);
    }
    for (const id of changed) await this.repool(stores, id);
  }

  /** The label a project speaker already has in this session, if any. */
  async labelOf(stores: Stores, sessionId: string, speakerId: string): Promise<string | null> {
    return (await stores.speakers.map(sessionId)).find((r) => r.speaker_id === speakerId)?.label ?? null;
  }

  /**
   * Right after an edit (inside its transaction): labels no longer in the transcript leave the map, and a
   * label the editor tied to a project speaker is mapped to it at once (names show before profiles are
   * measured again). Returns the project speakers whose evidence changed.
   */
  async applyEdit(stores: Stores, sessionId: string, transcript: Transcript, pinned?: { label: string; speakerId: string }): Promise<string[]> {
    const { speakers } = stores;
    const rows = await speakers.map(sessionId);
    const gone = rows.filter((r) => !transcript.speakers.includes(r.label));
    for (const r of gone) await speakers.removeLabel(sessionId, r.label);
    const changed = new Set(gone.map((r) => r.speaker_id));
    if (pinned) {
      const previous = rows.find((r) => r.label === pinned.label);
      if (previous) changed.add(previous.speaker_id);
      await speakers.pin(sessionId, pinned.label, pinned.speakerId, secondsByLabel(transcript).get(pinned.label) ?? 0);
      changed.add(pinned.speakerId);
    }
    for (const id of changed) await this.repool(stores, id);
    return [...changed];
  }

  /**
   * After the session's profiles were measured again: seconds are updated, labels without a project speaker
   * are matched (or become new project speakers) as enrolment does, editor-chosen speakers get their
   * similarity, and every project speaker of the session is pooled again.
   */
  reconcile(sessionId: string): Promise<void> {
    return this.database.transaction(async (stores) => {
      const summary = await stores.sessions.summary(sessionId);
      const transcript = await stores.sessions.transcript(sessionId);
      if (!summary || !transcript) return;
      const { speakers } = stores;
      const profiles = transcript.profiles ?? {};
      const seconds = secondsByLabel(transcript);
      const rows = await speakers.map(sessionId);
      const changed = new Set(rows.map((r) => r.speaker_id));
      for (const r of rows.filter((r) => !transcript.speakers.includes(r.label))) await speakers.removeLabel(sessionId, r.label);
      const kept = rows.filter((r) => transcript.speakers.includes(r.label));
      const known = await speakers.projectSpeakersWithProfiles(summary.project.id);
      for (const r of kept) {
        const own = profiles[r.label];
        const target = known.find((k) => k.id === r.speaker_id);
        const similarity = r.assigned === 'editor' && own && target ? this.matcher.similarity(own, target.profile) : r.similarity;
        await speakers.updateMapping(sessionId, r.label, seconds.get(r.label) ?? 0, similarity);
      }
      const taken = new Set(kept.map((r) => r.speaker_id));
      const rejected = await speakers.rejectedMatches(sessionId);
      const unmapped = transcript.speakers
        .filter((l) => !kept.some((r) => r.label === l) && profiles[l])
        .sort((a, b) => (seconds.get(b) ?? 0) - (seconds.get(a) ?? 0));
      const fresh: Array<{ label: string; similarity: number }> = [];
      for (const label of unmapped) {
        const profile = profiles[label]!;
        const refused = new Set([...taken, ...(rejected.get(label) ?? [])]);
        const { best, similarity, matched } = bestKnownVoice(profile, known, refused, this.matcher);
        if (!matched) {
          fresh.push({ label, similarity });
          continue;
        }
        await speakers.insertMapping(sessionId, { label, speaker_id: best!.id, similarity, matched: 1, seconds: seconds.get(label) ?? 0, assigned: 'voice' });
        taken.add(best!.id);
        changed.add(best!.id);
      }
      // New voices are numbered in the order the recording first heard them, as enrolment numbers them.
      const order = firstAppearance(transcript);
      for (const { label, similarity } of fresh.sort((a, b) => order(a.label) - order(b.label))) {
        const speakerId = await speakers.createProjectSpeaker(summary.project.id, profiles[label]!, seconds.get(label) ?? 0, 0);
        await speakers.insertMapping(sessionId, { label, speaker_id: speakerId, similarity, matched: 0, seconds: seconds.get(label) ?? 0, assigned: 'voice' });
        changed.add(speakerId);
      }
      for (const id of changed) await this.repool(stores, id);
    });
  }

  // ---- editor's basics: "not this person" ----
  /**
   * The editor says a recording's voice is not the project speaker it was matched to. Remembered (the voice is
   * never matched to that speaker again, here or when the recording is enrolled again); the voice takes the
   * next known speaker it matches that was not rejected and no other voice of the recording has, or becomes a
   * new project speaker. The rejected speaker's profile is pooled again without this voice. Returns the
   * project speaker the voice has now.
   */
  rejectMatch(sessionId: string, label: string, speakerId?: string): Promise<string> {
    return this.database.transaction(async (stores) => {
      const { sessions, speakers } = stores;
      const summary = await sessions.summary(sessionId);
      const transcript = await sessions.transcript(sessionId);
      if (!summary || !transcript) throw new NotFoundError('Transcription session not found.');
      const rows = await speakers.map(sessionId);
      const row = rows.find((r) => r.label === label);
      if (!row) throw new NotFoundError(`The recording has no speaker "${label}" filed under a project speaker.`, { param: 'label' });
      if (speakerId !== undefined && row.speaker_id !== speakerId)
        throw new ConflictError(`Speaker "${label}" is no longer matched to that project speaker; reload the speaker map.`, { code: 'stale_match' });
      if (row.matched !== 1 || row.assigned !== 'voice')
        throw new ConflictError(
          row.assigned === 'editor'
            ? `Speaker "${label}" was given to this project speaker by hand, not matched by voice; move its lines instead.`
            : `Speaker "${label}" was not matched to a known speaker (it is new in this recording); there is no match to reject.`,
          { code: 'not_a_match' },
        );
      const profile = transcript.profiles?.[label];
      if (!profile) throw new ConflictError(`Speaker "${label}" has no voice profile yet; try again when it has been measured.`, { code: 'no_profile' });
      await speakers.rejectMatch(sessionId, label, row.speaker_id);
      const rejected = (await speakers.rejectedMatches(sessionId)).get(label) ?? new Set<string>();
      const refused = new Set([...rows.filter((r) => r.label !== label).map((r) => r.speaker_id), ...rejected]);
      const known = await speakers.projectSpeakersWithProfiles(summary.project.id);
      const { best, similarity, matched } = bestKnownVoice(profile, known, refused, this.matcher);
      const next = matched && best ? best.id : await speakers.createProjectSpeaker(summary.project.id, profile, row.seconds, 0);
      await speakers.rematch(sessionId, label, next, similarity, matched);
      await this.repool(stores, row.speaker_id);
      await this.repool(stores, next);
      return next;
    });
  }
  // ---- end of the editor's basics block ----

  /**
   * A project speaker's clips, seconds and profile pooled again from every session that maps a label to it.
   * One left with no session at all is deleted unless the user named it (a voice diarization invented).
   */
  private async repool(stores: Stores, speakerId: string): Promise<void> {
    const { speakers, sessions } = stores;
    const speaker = await speakers.projectSpeaker(speakerId);
    if (!speaker) return;
    const rows = await speakers.mappingsOf(speakerId);
    if (rows.length === 0) {
      if (speaker.name === `Speaker ${speaker.number}`) await speakers.deleteProjectSpeaker(speakerId);
      return;
    }
    let pooled: { profile: number[]; seconds: number } | null = null;
    for (const row of rows) {
      const profile = (await sessions.transcript(row.session_id))?.profiles?.[row.label];
      if (!profile) continue;
      pooled = pooled ? { profile: this.matcher.merge(pooled.profile, pooled.seconds, profile, row.seconds), seconds: pooled.seconds + row.seconds } : { profile, seconds: row.seconds };
    }
    const total = rows.reduce((sum, r) => sum + r.seconds, 0);
    await speakers.setPooled(speakerId, rows.length, total, pooled?.profile ?? null);
  }
}

function pick(entry: SpeakerSnapshot[number]): Omit<SpeakerMapRow, 'seconds'> {
  return { label: entry.label, speaker_id: entry.speaker_id, similarity: entry.similarity, matched: entry.matched, assigned: entry.assigned };
}
