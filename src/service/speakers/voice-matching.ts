/** How voices are compared; the spectral implementation lives in speech/speakers. */
export interface VoiceMatcher {
  similarity(a: number[], b: number[]): number;
  /** Similarity at or above which two profiles are taken to be the same person. */
  threshold: number;
  /** A known speaker's profile updated with new evidence, weighted by seconds of speech. */
  merge(known: number[], knownSeconds: number, added: number[], addedSeconds: number): number[];
}
