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
};

/** Forced alignment: the grammar leaves little to search, so wide beams are affordable. */
export const ALIGNMENT_ARGS: Readonly<Record<string, string>> = {
  '-remove_silence': 'no',
  '-beam': '1e-80',
  '-pbeam': '1e-80',
  '-wbeam': '1e-60',
};
