import type { Db } from '../storage/database';
import type { ProjectStore } from '../storage/project-store';
import type { SessionStore } from '../storage/session-store';
import { bestKnownVoice, createProjectSpeaker, rejectedMatches } from './project-speakers';

/** How voices are compared; the spectral implementation lives in speech/speakers. */
export interface VoiceMatcher {
  similarity(a: number[], b: number[]): number;
  /** Similarity at or above which two profiles are taken to be the same person. */
  threshold: number;
  /** A known speaker's profile updated with new evidence, weighted by seconds of speech. */
  merge(known: number[], knownSeconds: number, added: number[], addedSeconds: number): number[];
}

export interface SpeakerMapEntry {
  speaker_id: string;
  number: number;
  name: string;
  similarity: number;
  matched: boolean;
}

/**
 * Project speakers: each speaker of a finished recording is matched against its project's known voices;
 * a match adds evidence to that speaker, anything else becomes a new project speaker.
 */
export class SpeakerDirectory {
  constructor(
    private readonly db: Db,
    private readonly projects: ProjectStore,
    private readonly sessions: SessionStore,
    private readonly matcher: VoiceMatcher,
  ) {}

  enrol(sessionId: string): void {
    const summary = this.sessions.summary(sessionId);
    const transcript = this.sessions.transcript(sessionId);
    if (!summary || !transcript?.profiles) return;
    const projectId = summary.project.id;
    const seconds = new Map<string, number>();
    for (const segment of transcript.segments) seconds.set(segment.speaker, (seconds.get(segment.speaker) ?? 0) + (segment.end - segment.start));

    this.db.transaction(() => {
      this.db.prepare('DELETE FROM session_speakers WHERE session_id = ?').run(sessionId);
      const known = this.projects.speakersWithProfiles(projectId);
      const taken = new Set<string>();
      // Matches the editor rejected ("not this person") are never made again.
      const rejected = rejectedMatches(this.db, sessionId);
      // Longest speakers first: they carry the most evidence and claim their match before shorter ones.
      const labels = transcript.speakers.filter((l) => transcript.profiles![l]).sort((a, b) => (seconds.get(b) ?? 0) - (seconds.get(a) ?? 0));
      for (const label of labels) {
        const profile = transcript.profiles![label]!;
        const evidence = seconds.get(label) ?? 0;
        const refused = new Set([...taken, ...(rejected.get(label) ?? [])]);
        const { best, similarity: bestSimilarity, matched } = bestKnownVoice(profile, known, refused, this.matcher);
        let speakerId: string;
        if (matched && best) {
          speakerId = best.id;
          const merged = this.matcher.merge(best.profile, best.evidence_seconds, profile, evidence);
          this.db
            .prepare('UPDATE project_speakers SET clip_count = clip_count + 1, evidence_seconds = evidence_seconds + ?, profile_json = ? WHERE id = ?')
            .run(evidence, JSON.stringify(merged), best.id);
        } else {
          speakerId = createProjectSpeaker(this.db, projectId, profile, evidence, 1);
        }
        taken.add(speakerId);
        this.db
          .prepare('INSERT INTO session_speakers (session_id, label, speaker_id, similarity, matched, seconds) VALUES (?, ?, ?, ?, ?, ?)')
          .run(sessionId, label, speakerId, matched ? bestSimilarity : best ? bestSimilarity : 0, matched ? 1 : 0, evidence);
      }
    })();
  }

  speakerMap(sessionId: string): Record<string, SpeakerMapEntry> {
    const rows = this.db
      .prepare(
        `SELECT ss.label, ss.speaker_id, ss.similarity, ss.matched, ps.number, ps.name
         FROM session_speakers ss JOIN project_speakers ps ON ps.id = ss.speaker_id WHERE ss.session_id = ? ORDER BY ss.label`,
      )
      .all(sessionId) as Array<{ label: string; speaker_id: string; similarity: number; matched: number; number: number; name: string }>;
    return Object.fromEntries(
      rows.map((r) => [r.label, { speaker_id: r.speaker_id, number: r.number, name: r.name, similarity: Math.round(r.similarity * 1000) / 1000, matched: r.matched === 1 }]),
    );
  }

  namesFor(sessionId: string): Record<string, string> {
    return Object.fromEntries(Object.entries(this.speakerMap(sessionId)).map(([label, entry]) => [label, entry.name]));
  }
}
