/**
 * Decoder settings for recognition, tuned on the team's read-speech set with bench/asr (the README there
 * has the figure each change bought). They are global: nothing here depends on a file or a speaker.
 *
 * -remove_silence no is not a tuning choice: the program's own VAD drops frames before the search, which
 * shifts every word time after a pause (verified: 3 s of leading silence vanished from the times). Our
 * chunks come from a VAD already.
 */
export const RECOGNITION_ARGS: Readonly<Record<string, string>> = {
  '-remove_silence': 'no',
  // Wider beams than the defaults (1e-48, 7e-29) and no phone lookahead pruning: fewer correct words pruned.
  '-beam': '1e-60',
  '-pbeam': '1e-60',
  '-wbeam': '1e-50',
  '-pl_window': '0',
  // Lower word insertion penalty than 0.65: VAD chunks carry little silence, so fewer spurious short words.
  '-wip': '0.2',
  // Score the 8 best Gaussians per senone instead of 4.
  '-topn': '8',
  // Silence insertion probability below the default 0.005: chunks are speech by construction (−0.3 point).
  '-silprob': '0.001',
};

/** Forced alignment: the grammar leaves little to search, so wide beams are affordable. */
export const ALIGNMENT_ARGS: Readonly<Record<string, string>> = {
  '-remove_silence': 'no',
  '-beam': '1e-80',
  '-pbeam': '1e-80',
  '-wbeam': '1e-60',
};
