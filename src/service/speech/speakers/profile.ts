import type { FeatureMatrix } from '../../dsp/features';

/** Cepstra used in profiles: c1 … c19. c0 (loudness) is left out, since it says more about the mic than the voice. */
const FIRST = 1;
const LAST = 19;

/** Profile layout version, stored nowhere but handy in tests and logs. */
export const PROFILE_DIMENSIONS = 2 * (LAST - FIRST + 1);

/**
 * A voice profile from raw (not mean-normalised) MFCC frames of one speaker: per-cepstrum mean and
 * standard deviation of c1…c19. It is a long-term spectral envelope summary, comparable across recordings
 * made with similar equipment; see `profileSimilarity`.
 */
export function computeProfile(mfcc: FeatureMatrix, frames: ArrayLike<number>): number[] {
  const dims = LAST - FIRST + 1;
  if (mfcc.dim <= LAST) throw new Error(`computeProfile needs at least ${LAST + 1} cepstra, got ${mfcc.dim}`);
  const sum = new Float64Array(dims);
  const sq = new Float64Array(dims);
  for (let i = 0; i < frames.length; i++) {
    const o = frames[i]! * mfcc.dim;
    for (let d = 0; d < dims; d++) {
      const v = mfcc.data[o + FIRST + d]!;
      sum[d]! += v;
      sq[d]! += v * v;
    }
  }
  const n = Math.max(1, frames.length);
  const profile: number[] = [];
  for (let d = 0; d < dims; d++) profile.push(sum[d]! / n);
  for (let d = 0; d < dims; d++) profile.push(Math.sqrt(Math.max(0, sq[d]! / n - (sum[d]! / n) ** 2)));
  return profile;
}
