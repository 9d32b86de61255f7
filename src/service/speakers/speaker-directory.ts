import type { Database } from '../storage/stores';
import { bestKnownVoice } from './project-speakers';
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
  /** The matcher's threshold, served so clients judge a similarity against it (issue 33). */
  match_threshold: number;
}

/**
 * Project speakers: each speaker of a finished recording is matched against its project's known voices;
 * a match adds evidence to that speaker, anything else becomes a new project speaker.
 */
export class SpeakerDirectory {
  constructor(
    private readonly database: Database,
    private readonly matcher: VoiceMatcher,
  ) {}

  enrol(sessionId: string): Promise<void> {
    return this.database.transaction(async ({ sessions, speakers }) => {
      const summary = await sessions.summary(sessionId);
      const transcript = await sessions.transcript(sessionId);
      if (!summary || !transcript?.profiles) return;
      const projectId = summary.project.id;
      const seconds = new Map<string, number>();
      for (const segment of transcript.segments) seconds.set(segment.speaker, (seconds.get(segment.speaker) ?? 0) + (segment.end - segment.start));
      await speakers.clearMap(sessionId);
      const known = await speakers.projectSpeakersWithProfiles(projectId);
      // Matches the editor rejected ("not this person") are never made again.
      const rejected = await speakers.rejectedMatches(sessionId);
      const taken = new Set<string>();
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
          await speakers.addEvidence(best.id, evidence, this.matcher.merge(best.profile, best.evidence_seconds, profile, evidence));
        } else {
          speakerId = await speakers.createProjectSpeaker(projectId, profile, evidence, 1);
        }
        taken.add(speakerId);
        await speakers.insertMapping(sessionId, { label, speaker_id: speakerId, similarity: best ? bestSimilarity : 0, matched: matched ? 1 : 0, seconds: evidence, assigned: 'voice' });
      }
    });
  }

  async speakerMap(sessionId: string): Promise<Record<string, SpeakerMapEntry>> {
    const rows = await this.database.speakers.namedMap(sessionId);
    return Object.fromEntries(
      rows.map((r) => [r.label, { speaker_id: r.speaker_id, number: r.number, name: r.name, similarity: Math.round(r.similarity * 1000) / 1000, matched: r.matched === 1, match_threshold: this.matcher.threshold }]),
    );
  }

  async namesFor(sessionId: string): Promise<Record<string, string>> {
    return Object.fromEntries(Object.entries(await this.speakerMap(sessionId)).map(([label, entry]) => [label, entry.name]));
  }
}
