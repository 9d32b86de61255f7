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
