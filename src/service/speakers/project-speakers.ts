import crypto from 'node:crypto';
import type { Db } from '../storage/database';
import type { VoiceMatcher } from './speaker-directory';

/** The most similar known voice not yet taken by another label of the recording, and whether it matches. */
export function bestKnownVoice<T extends { id: string; profile: number[] }>(
  profile: number[],
  known: readonly T[],
  taken: ReadonlySet<string>,
  matcher: VoiceMatcher,
): { best: T | null; similarity: number; matched: boolean } {
  let best: T | null = null;
  let similarity = 0;
  for (const candidate of known) {
    if (taken.has(candidate.id)) continue;
    const s = matcher.similarity(profile, candidate.profile);
    if (s > similarity) [best, similarity] = [candidate, s];
  }
  return { best, similarity, matched: best !== null && similarity >= matcher.threshold };
}

/** A new project speaker `Speaker N` (label `PN`) with one recording's voice profile; returns its id. */
export function createProjectSpeaker(db: Db, projectId: string, profile: number[], seconds: number, clips: number): string {
  const id = crypto.randomUUID();
  const number = ((db.prepare('SELECT MAX(number) AS n FROM project_speakers WHERE project_id = ?').get(projectId) as { n: number | null }).n ?? 0) + 1;
  db.prepare('INSERT INTO project_speakers (id, project_id, number, name, label, clip_count, evidence_seconds, profile_json, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)').run(
    id,
    projectId,
    number,
    `Speaker ${number}`,
    `P${number}`,
    clips,
    seconds,
    JSON.stringify(profile),
    new Date().toISOString(),
  );
  return id;
}

/** The project speakers each voice (label) of a session was said not to be ("not this person"), by label. */
export function rejectedMatches(db: Db, sessionId: string): Map<string, Set<string>> {
  const rows = db.prepare('SELECT label, speaker_id FROM speaker_match_rejections WHERE session_id = ?').all(sessionId) as Array<{ label: string; speaker_id: string }>;
  const byLabel = new Map<string, Set<string>>();
  for (const r of rows) (byLabel.get(r.label) ?? byLabel.set(r.label, new Set()).get(r.label)!).add(r.speaker_id);
  return byLabel;
}
