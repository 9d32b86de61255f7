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
  // One pass over the tree lexicon, with its result rescored by the lattice pass (-bestpath): the flat-lexicon
  // second pass cost 10% more CPU and lost words (subset 40.8% → 38.8% WER without it).
  '-fwdflat': 'no',
  // A wider frame beam than the default 1e-48 keeps correct words alive (the amateur set gains most); the
  // phone and word-exit beams stay at their defaults, which cost half the CPU of widening all three.
  '-beam': '1e-60',
  // Phone-loop lookahead over 3 frames (default 5; 0 turns it off): it prunes word entries the next frames'
  // phones make unlikely, which halves the HMMs searched per frame and cuts the decoder's CPU by a quarter or
  // more at the same errors on the tuning half (the test half: 41.8% → 43.1%, still 21% below the untuned
  // program; bench/asr/README.md, fourth round). Window 5 searched more HMMs than 3 and lost a word.
  '-pl_window': '3',
  // The lookahead's penalties weighted 5 (default 3), and at most 8000 HMMs per frame (default 30000): a
  // third fewer HMMs searched on average (8320 → 4685 per frame) and the busiest frames capped, at 407 → 400
  // errors on the tuning half (test half 392 → 395; bench/asr/README.md, fifth round). Weight 6 or a cap of
  // 5000 lost words.
  '-pl_weight': '5',
  '-maxhmmpf': '8000',
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
