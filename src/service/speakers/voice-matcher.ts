import type { VoiceMatcher } from './speaker-directory';

function cosine(a: number[], b: number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! ** 2;
    nb += b[i]! ** 2;
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}

export const spectralVoiceMatcher: VoiceMatcher = {
  similarity: (a, b) => (cosine(a, b) + 1) / 2,
  threshold: 0.9,
  merge: (known, knownSeconds, added, addedSeconds) =>
    known.map((v, i) => (v * knownSeconds + (added[i] ?? v) * addedSeconds) / Math.max(1e-9, knownSeconds + addedSeconds)),
};
