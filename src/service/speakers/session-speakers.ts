import type { Db } from '../storage/database';
import type { ProjectStore } from '../storage/project-store';
import type { SessionStore } from '../storage/session-store';
import type { Transcript } from '../speech/types';
import type { VoiceMatcher } from './speaker-directory';
import { ConflictError, NotFoundError } from '../errors';
import { bestKnownVoice, createProjectSpeaker, rejectedMatches } from './project-speakers';

interface MapRow {
  label: string;
  speaker_id: string;
  similarity: number;
  matched: number;
  seconds: number;
  assigned: 'voice' | 'editor';
}

/** A session's speaker map as stored with a revision: each label's project speaker as it was. */
export type SpeakerSnapshot = Array<MapRow & { number: number; name: string; profile_json: string; project_id: string }>;

function secondsByLabel(transcript: Transcript): Map<string, number> {
  const seconds = new Map<string, number>();
  for (const s of transcript.segments) seconds.set(s.speaker, (seconds.get(s.speaker) ?? 0) + (s.end - s.start));
  return seconds;
}

/**
 * Keeps a session's speaker map and the project's voice profiles in step with an editor's speaker fixes.
 * A project speaker's profile is the pool of its sessions' profiles weighted by seconds (what enrolment
 * builds up one recording at a time), so after an edit every project speaker the session touched is pooled
 * again from the sessions that still name it: evidence moved by hand moves with it.
 */
export class SessionSpeakerEditor {
  constructor(
    private readonly db: Db,
    private readonly projects: ProjectStore,
    private readonly sessions: SessionStore,
    private readonly matcher: VoiceMatcher,
  ) {}

  private rows(sessionId: string): MapRow[] {
    return this.db
      .prepare('SELECT label, speaker_id, similarity, matched, seconds, assigned FROM session_speakers WHERE session_id = ?')
      .all(sessionId) as MapRow[];
  }

  /** The session's speaker map with enough of each project speaker to bring it back if it is deleted later. */
  snapshot(sessionId: string): SpeakerSnapshot {
    return this.db
      .prepare(
        `SELECT ss.label, ss.speaker_id, ss.similarity, ss.matched, ss.seconds, ss.assigned, ps.number, ps.name, ps.profile_json, ps.project_id
         FROM session_speakers ss JOIN project_speakers ps ON ps.id = ss.speaker_id WHERE ss.session_id = ?`,
      )
      .all(sessionId) as SpeakerSnapshot;
  }

  /**
   * After restoring a revision: its labels get the project speakers they had then (recreated, same id and
   * name, if an edit since removed them), instead of being matched again as strangers.
   */
  restoreSnapshot(sessionId: string, transcript: Transcript, snapshot: SpeakerSnapshot): void {
    const rows = this.rows(sessionId);
    const changed = new Set(rows.map((r) => r.speaker_id));
    this.db.prepare('DELETE FROM session_speakers WHERE session_id = ?').run(sessionId);
    const seconds = secondsByLabel(transcript);
    for (const entry of snapshot.filter((e) => transcript.speakers.includes(e.label))) {
      const exists = this.db.prepare('SELECT 1 FROM project_speakers WHERE id = ?').get(entry.speaker_id);
      if (!exists) {
        const taken = this.db.prepare('SELECT 1 FROM project_speakers WHERE project_id = ? AND number = ?').get(entry.project_id, entry.number);
        const number = taken
          ? ((this.db.prepare('SELECT MAX(number) AS n FROM project_speakers WHERE project_id = ?').get(entry.project_id) as { n: number }).n + 1)
          : entry.number;
        this.db
          .prepare('INSERT INTO project_speakers (id, project_id, number, name, label, clip_count, evidence_seconds, profile_json, created_at) VALUES (?, ?, ?, ?, ?, 0, 0, ?, ?)')
          .run(entry.speaker_id, entry.project_id, number, entry.name === `Speaker ${entry.number}` ? `Speaker ${number}` : entry.name, `P${number}`, entry.profile_json, new Date().toISOString());
      }
      this.db
        .prepare('INSERT INTO session_speakers (session_id, label, speaker_id, similarity, matched, seconds, assigned) VALUES (?, ?, ?, ?, ?, ?, ?)')
        .run(sessionId, entry.label, entry.speaker_id, entry.similarity, entry.matched, seconds.get(entry.label) ?? 0, entry.assigned);
      changed.add(entry.speaker_id);
    }
    for (const id of changed) this.repool(id);
  }

  /** The label a project speaker already has in this session, if any. */
  labelOf(sessionId: string, speakerId: string): string | null {
    return this.rows(sessionId).find((r) => r.speaker_id === speakerId)?.label ?? null;
  }

  /**
   * Right after an edit (inside its transaction): labels no longer in the transcript leave the map, and a
   * label the editor tied to a project speaker is mapped to it at once (names show before profiles are
   * measured again). Returns the project speakers whose evidence changed.
   */
  applyEdit(sessionId: string, transcript: Transcript, pinned?: { label: string; speakerId: string }): string[] {
    const rows = this.rows(sessionId);
    const gone = rows.filter((r) => !transcript.speakers.includes(r.label));
    const remove = this.db.prepare('DELETE FROM session_speakers WHERE session_id = ? AND label = ?');
    for (const r of gone) remove.run(sessionId, r.label);
    const changed = new Set(gone.map((r) => r.speaker_id));
    if (pinned) {
      const seconds = secondsByLabel(transcript).get(pinned.label) ?? 0;
      const previous = rows.find((r) => r.label === pinned.label);
      if (previous) changed.add(previous.speaker_id);
      this.db
        .prepare(
          `INSERT INTO session_speakers (session_id, label, speaker_id, similarity, matched, seconds, assigned) VALUES (?, ?, ?, 0, 1, ?, 'editor')
           ON CONFLICT (session_id, label) DO UPDATE SET speaker_id = excluded.speaker_id, similarity = 0, matched = 1, seconds = excluded.seconds, assigned = 'editor'`,
        )
        .run(sessionId, pinned.label, pinned.speakerId, seconds);
      changed.add(pinned.speakerId);
    }
    for (const id of changed) this.repool(id);
    return [...changed];
  }

  /**
   * After the session's profiles were measured again: seconds are updated, labels without a project speaker
   * are matched (or become new project speakers) as enrolment does, editor-chosen speakers get their
   * similarity, and every project speaker of the session is pooled again.
   */
  reconcile(sessionId: string): void {
    const summary = this.sessions.summary(sessionId);
    const transcript = this.sessions.transcript(sessionId);
    if (!summary || !transcript) return;
    const profiles = transcript.profiles ?? {};
    const seconds = secondsByLabel(transcript);
    this.db.transaction(() => {
      const rows = this.rows(sessionId);
      const changed = new Set(rows.map((r) => r.speaker_id));
      for (const r of rows.filter((r) => !transcript.speakers.includes(r.label))) {
        this.db.prepare('DELETE FROM session_speakers WHERE session_id = ? AND label = ?').run(sessionId, r.label);
      }
      const kept = rows.filter((r) => transcript.speakers.includes(r.label));
      const known = this.projects.speakersWithProfiles(summary.project.id);
      for (const r of kept) {
        const own = profiles[r.label];
        const target = known.find((k) => k.id === r.speaker_id);
        const similarity = r.assigned === 'editor' && own && target ? this.matcher.similarity(own, target.profile) : r.similarity;
        this.db
          .prepare('UPDATE session_speakers SET seconds = ?, similarity = ? WHERE session_id = ? AND label = ?')
          .run(seconds.get(r.label) ?? 0, similarity, sessionId, r.label);
      }
      const taken = new Set(kept.map((r) => r.speaker_id));
      const unmapped = transcript.speakers
        .filter((l) => !kept.some((r) => r.label === l) && profiles[l])
        .sort((a, b) => (seconds.get(b) ?? 0) - (seconds.get(a) ?? 0));
      const rejected = rejectedMatches(this.db, sessionId);
      for (const label of unmapped) {
        const profile = profiles[label]!;
        const refused = new Set([...taken, ...(rejected.get(label) ?? [])]);
        const { best, similarity: bestSimilarity, matched } = bestKnownVoice(profile, known, refused, this.matcher);
        const speakerId = matched ? best!.id : createProjectSpeaker(this.db, summary.project.id, profile, seconds.get(label) ?? 0, 0);
        this.db
          .prepare("INSERT INTO session_speakers (session_id, label, speaker_id, similarity, matched, seconds, assigned) VALUES (?, ?, ?, ?, ?, ?, 'voice')")
          .run(sessionId, label, speakerId, bestSimilarity, matched ? 1 : 0, seconds.get(label) ?? 0);
        taken.add(speakerId);
        changed.add(speakerId);
      }
      for (const id of changed) this.repool(id);
    })();
  }

  // ---- editor's basics (issue 33): "not this person" ----
  /**
   * The editor says a recording's voice is not the project speaker it was matched to. Remembered (the voice is
   * never matched to that speaker again, here or when the recording is enrolled again); the voice takes the
   * next known speaker it matches that was not rejected and no other voice of the recording has, or becomes a
   * new project speaker. The rejected speaker's profile is pooled again without this voice. Returns the
   * project speaker the voice has now.
   */
  rejectMatch(sessionId: string, label: string, speakerId?: string): string {
    const summary = this.sessions.summary(sessionId);
    const transcript = this.sessions.transcript(sessionId);
    if (!summary || !transcript) throw new NotFoundError('Transcription session not found.');
    return this.db.transaction(() => {
      const rows = this.rows(sessionId);
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
      this.db
        .prepare('INSERT INTO speaker_match_rejections (session_id, label, speaker_id, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING')
        .run(sessionId, label, row.speaker_id, new Date().toISOString());
      const refused = new Set([...rows.filter((r) => r.label !== label).map((r) => r.speaker_id), ...(rejectedMatches(this.db, sessionId).get(label) ?? [])]);
      const known = this.projects.speakersWithProfiles(summary.project.id);
      const { best, similarity, matched } = bestKnownVoice(profile, known, refused, this.matcher);
      const next = matched && best ? best.id : createProjectSpeaker(this.db, summary.project.id, profile, row.seconds, 0);
      this.db
        .prepare("UPDATE session_speakers SET speaker_id = ?, similarity = ?, matched = ?, assigned = 'voice' WHERE session_id = ? AND label = ?")
        .run(next, similarity, matched ? 1 : 0, sessionId, label);
      this.repool(row.speaker_id);
      this.repool(next);
      return next;
    })();
  }
  // ---- end of the editor's basics block ----

  /**
   * A project speaker's clips, seconds and profile pooled again from every session that maps a label to it.
   * One left with no session at all is deleted unless the user named it (a voice diarization invented).
   */
  private repool(speakerId: string): void {
    const speaker = this.db.prepare('SELECT id, number, name FROM project_speakers WHERE id = ?').get(speakerId) as
      | { id: string; number: number; name: string }
      | undefined;
    if (!speaker) return;
    const rows = this.db.prepare('SELECT session_id, label, seconds FROM session_speakers WHERE speaker_id = ?').all(speakerId) as Array<{
      session_id: string;
      label: string;
      seconds: number;
    }>;
    if (rows.length === 0) {
      if (speaker.name === `Speaker ${speaker.number}`) this.db.prepare('DELETE FROM project_speakers WHERE id = ?').run(speakerId);
      return;
    }
    let pooled: { profile: number[]; seconds: number } | null = null;
    for (const row of rows) {
      const profile = this.sessions.transcript(row.session_id)?.profiles?.[row.label];
      if (!profile) continue;
      pooled = pooled ? { profile: this.matcher.merge(pooled.profile, pooled.seconds, profile, row.seconds), seconds: pooled.seconds + row.seconds } : { profile, seconds: row.seconds };
    }
    const total = rows.reduce((sum, r) => sum + r.seconds, 0);
    if (pooled) {
      this.db
        .prepare('UPDATE project_speakers SET clip_count = ?, evidence_seconds = ?, profile_json = ? WHERE id = ?')
        .run(rows.length, total, JSON.stringify(pooled.profile), speakerId);
    } else {
      this.db.prepare('UPDATE project_speakers SET clip_count = ?, evidence_seconds = ? WHERE id = ?').run(rows.length, total, speakerId);
    }
  }
}
