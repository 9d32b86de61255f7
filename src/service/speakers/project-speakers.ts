import type { VoiceMatcher } from './voice-matching';

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

/**
 * A recording's labels ranked by when they first speak (ties and silent labels by the label's number): how
 * the recording lists its voices and the order new project speakers are numbered in.
 */
export function firstAppearance(transcript: { segments: readonly { speaker: string; start: number }[] }): (label: string) => number {
  const first = new Map<string, number>();
  for (const s of transcript.segments) if (!(s.start >= (first.get(s.speaker) ?? Infinity))) first.set(s.speaker, s.start);
  const ranked = [...first.keys()].sort((a, b) => first.get(a)! - first.get(b)! || labelNumber(a) - labelNumber(b));
  return (label) => {
    const i = ranked.indexOf(label);
    return i >= 0 ? i : ranked.length + labelNumber(label);
  };
}

function labelNumber(label: string): number {
  return Number(/(\d+)$/.exec(label)?.[1] ?? Number.MAX_SAFE_INTEGER);
}
