import type { VoiceMatcher } from './voice-matching';
import { DEFAULT_MATCH_THRESHOLD, mergeProfile, profileSimilarity } from '../speech/speakers/similarity';

/** Spectral voice profiles (speech/speakers) behind the directory's matcher contract. */
export const spectralVoiceMatcher: VoiceMatcher = {
  similarity: profileSimilarity,
  threshold: DEFAULT_MATCH_THRESHOLD,
  merge: (known, knownSeconds, added, addedSeconds) => mergeProfile({ profile: known, seconds: knownSeconds }, added, addedSeconds).profile,
};
