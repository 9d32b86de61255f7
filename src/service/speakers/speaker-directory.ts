import type { Database } from '../storage/stores';
import { bestKnownVoice, firstAppearance } from './project-speakers';
import type { VoiceMatcher } from './voice-matching';
export type { VoiceMatcher } from './voice-matching';

export interface SpeakerMapEntry {
  speaker_id: string;
  number: number;
  name: string;
  similarity: number;
  matched: boolean;
  /** The matcher's threshold, served so clients judge a similarity against it. */
  match_threshold: number;
  /** Where the project first heard this voice: `number` is its identity in the project, not a count of this recording's voices. */
  first_heard_in: { session_id: string; file_name: string };
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
      const fresh: Array<{ label: string; similarity: number }> = [];
      // Longest speakers first: they carry the most evidence and claim their match before shorter ones.
      const labels = transcript.speakers.filter((l) => transcript.profiles![l]).sort((a, b) => (seconds.get(b) ?? 0) - (seconds.get(a) ?? 0));
      for (const label of labels) {
        const profile = transcript.profiles![label]!;
        const evidence = seconds.get(label) ?? 0;
        const refused = new Set([...taken, ...(rejected.get(label) ?? [])]);
        const { best, similarity: bestSimilarity, matched } = bestKnownVoice(profile, known, refused, this.matcher);
        if (!matched || !best) {
          fresh.push({ label, similarity: best ? bestSimilarity : 0 });
          continue;
        }
        await speakers.addEvidence(best.id, evidence, this.matcher.merge(best.profile, best.evidence_seconds, profile, evidence));
        taken.add(best.id);
        await speakers.insertMapping(sessionId, { label, speaker_id: best.id, similarity: bestSimilarity, matched: 1, seconds: evidence, assigned: 'voice' });
      }
      // New voices are numbered in the order the recording first heard them (S1 before S2), not by length.
      const order = firstAppearance(transcript);
      for (const { label, similarity } of fresh.sort((a, b) => order(a.label) - order(b.label))) {
        const evidence = seconds.get(label) ?? 0;
        const speakerId = await speakers.createProjectSpeaker(projectId, transcript.profiles![label]!, evidence, 1);
        await speakers.insertMapping(sessionId, { label, speaker_id: speakerId, similarity, matched: 0, seconds: evidence, assigned: 'voice' });
      }
    });
  }

  async speakerMap(sessionId: string): Promise<Record<string, SpeakerMapEntry>> {
    const rows = await this.database.speakers.namedMap(sessionId);
    return Object.fromEntries(
      rows.map((r) => [
        r.label,
        {
          speaker_id: r.speaker_id,
          number: r.number,
          name: r.name,
          similarity: Math.round(r.similarity * 1000) / 1000,
          matched: r.matched === 1,
          match_threshold: this.matcher.threshold,
          first_heard_in: { session_id: r.first_session_id, file_name: r.first_file_name },
        },
      ]),
    );
  }

  async namesFor(sessionId: string): Promise<Record<string, string>> {
    return Object.fromEntries(Object.entries(await this.speakerMap(sessionId)).map(([label, entry]) => [label, entry.name]));
  }
}
