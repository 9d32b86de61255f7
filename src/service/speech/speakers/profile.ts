import type { FeatureMatrix } from '../../dsp/features';

/** Cepstra used in profiles: c1 … c19. c0 (loudness) is left out, since it says more about the mic than the voice. */
const FIRST = 1;
const LAST = 19;
export const PROFILE_CEPSTRA = LAST - FIRST + 1;

/** Profile length: liftered means then liftered standard deviations of c1…c19. */
export const PROFILE_DIMENSIONS = 2 * PROFILE_CEPSTRA;

/**
 * A voice profile from raw (not mean-normalised) MFCC frames of one speaker: per-cepstrum mean and
 * standard deviation of c1…c19, each multiplied by its index k (liftering). Without the lift, c1–c2
 * (overall spectral tilt, shared by all voices) dominate the cosine; with it, measured on the test
 * recordings, the equal error rate of same/different-speaker decisions fell from 6% to 0.3%
 * (bench/diarization/profiles.ts). Layout: [k·mean_k …, k·std_k …], k = 1…19.
 */
export function computeProfile(mfcc: FeatureMatrix, frames: ArrayLike<number>): number[] {
  if (mfcc.dim <= LAST) throw new Error(`computeProfile needs at least ${LAST + 1} cepstra, got ${mfcc.dim}`);
  const sum = new Float64Array(PROFILE_CEPSTRA);
  const sq = new Float64Array(PROFILE_CEPSTRA);
  for (let i = 0; i < frames.length; i++) {
    const o = frames[i]! * mfcc.dim;
    for (let d = 0; d < PROFILE_CEPSTRA; d++) {
      const v = mfcc.data[o + FIRST + d]!;
      sum[d]! += v;
      sq[d]! += v * v;
    }
  }
  const n = Math.max(1, frames.length);
  const means: number[] = [];
  const stds: number[] = [];
  for (let d = 0; d < PROFILE_CEPSTRA; d++) {
    const lift = FIRST + d;
    const mean = sum[d]! / n;
    means.push(lift * mean);
    stds.push(lift * Math.sqrt(Math.max(0, sq[d]! / n - mean * mean)));
  }
  return [...means, ...stds];
}
