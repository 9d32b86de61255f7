import { munkres } from 'munkres';
import { PROFILE_CEPSTRA, PROFILE_DIMENSIONS } from './profile';

/**
 * Similarity above which two profiles are taken for the same person: the lowest whose false-match rate is at
 * most 1% on the tuning half of every public set (bench/speakers: asr/ readers, AMI meeting speakers and the
 * call's parties, voices of different sources being different people). On the test half it accepts 100% of
 * same-person pairs (573) and 0.7% of different-people pairs (701) — but counted per pair of people, 11% of
 * different pairs still match somewhere, and the closest different pairs reach 0.984 (two AMI speakers) and
 * 0.983 (CMU ARCTIC aew vs LibriSpeech 1089): this spectral profile (MFCC means and spreads) tells channels
 * apart better than people, so no threshold here makes a match certain (bench/speakers/README.md).
 */
export const DEFAULT_MATCH_THRESHOLD = 0.9615;

/** Cosine similarity mapped from [−1, 1] to [0, 1]; 0.5 for an empty or zero profile. */
export function profileSimilarity(a: number[], b: number[]): number {
  if (a.length !== b.length) throw new Error(`Profiles differ in length (${a.length} vs ${b.length})`);
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  if (na === 0 || nb === 0) return 0.5;
  const cos = dot / Math.sqrt(na * nb);
  return Math.min(1, Math.max(0, (1 + cos) / 2));
}

export interface SpeakerMatch {
  /** Id of the known speaker this label is, or null for a new voice. */
  knownId: string | null;
  /** Similarity to the matched known speaker, or to the closest one when unmatched (0 if none known). */
  similarity: number;
}

/**
 * Matches the speakers of one recording to known speakers. Labels of one recording are different people,
 * so the assignment is one-to-one: the Hungarian algorithm maximises total similarity, and pairs below
 * `threshold` are left unmatched.
 */
export function matchSpeakers(
  recordingProfiles: Record<string, number[]>,
  knownProfiles: Record<string, number[]>,
  threshold = DEFAULT_MATCH_THRESHOLD,
): Record<string, SpeakerMatch> {
  const labels = Object.keys(recordingProfiles);
  const known = Object.keys(knownProfiles);
  const sim = labels.map((l) =>
    known.map((k) => profileSimilarity(recordingProfiles[l]!, knownProfiles[k]!)),
  );
  const result: Record<string, SpeakerMatch> = {};
  for (const [i, l] of labels.entries()) {
    result[l] = { knownId: null, similarity: known.length ? Math.max(...sim[i]!) : 0 };
  }
  if (!labels.length || !known.length) return result;
  // Below-threshold pairs cost as much as leaving both unmatched, so they never displace a real match.
  const cost = sim.map((row) => row.map((s) => (s >= threshold ? -s : 0)));
  for (const [i, k] of munkres(cost)) {
    const s = sim[i]![k]!;
    if (s >= threshold) result[labels[i]!] = { knownId: known[k]!, similarity: s };
  }
  return result;
}

/** A known speaker's profile with the seconds of speech behind it. */
export interface WeightedProfile {
  profile: number[];
  seconds: number;
}

/**
 * Pools a known speaker's profile with new evidence, weighting each by its seconds of speech. Means
 * average linearly; standard deviations are pooled through second moments (σ² + μ²), so the result is
 * what one profile over all the speech would have been.
 */
export function mergeProfile(
  known: WeightedProfile,
  incoming: number[],
  weightSeconds: number,
): WeightedProfile {
  if (known.profile.length !== PROFILE_DIMENSIONS || incoming.length !== PROFILE_DIMENSIONS) {
    throw new Error(`Profiles must have ${PROFILE_DIMENSIONS} values`);
  }
  const wa = Math.max(0, known.seconds);
  const wb = Math.max(0, weightSeconds);
  const total = wa + wb;
  if (total === 0) return { profile: known.profile.slice(), seconds: 0 };
  const fa = wa / total;
  const fb = wb / total;
  const profile = new Array<number>(PROFILE_DIMENSIONS);
  for (let d = 0; d < PROFILE_CEPSTRA; d++) {
    const ma = known.profile[d]!;
    const mb = incoming[d]!;
    const sa = known.profile[PROFILE_CEPSTRA + d]!;
    const sb = incoming[PROFILE_CEPSTRA + d]!;
    const mean = fa * ma + fb * mb;
    const second = fa * (sa * sa + ma * ma) + fb * (sb * sb + mb * mb);
    profile[d] = mean;
    profile[PROFILE_CEPSTRA + d] = Math.sqrt(Math.max(0, second - mean * mean));
  }
  return { profile, seconds: total };
}
