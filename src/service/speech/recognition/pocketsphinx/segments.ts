import type { RecognizedSegment, RecognizedWord } from '../../types';

/** Floor for log(confidence): a posterior printed as 0.000 is "below 0.0005", not impossible. */
const MIN_CONFIDENCE = 1e-4;

/**
 * Groups time-ordered words into segments, starting a new one at every pause of at least `pauseSeconds`
 * (the decoder's silence and fillers lie in those gaps; they are not words, but they decide where
 * segments break). avgLogprob is the mean natural log of the words' posteriors.
 */
export function wordsToSegments(words: readonly RecognizedWord[], pauseSeconds: number): RecognizedSegment[] {
  const segments: RecognizedSegment[] = [];
  let current: RecognizedWord[] = [];
  const flush = () => {
    if (!current.length) return;
    const logs = current.map((w) => Math.log(Math.max(MIN_CONFIDENCE, w.confidence)));
    segments.push({
      start: current[0]!.start,
      end: current[current.length - 1]!.end,
      text: current.map((w) => w.word).join(' '),
      words: current,
      avgLogprob: logs.reduce((a, b) => a + b, 0) / logs.length,
    });
    current = [];
  };
  for (const word of words) {
    const last = current[current.length - 1];
    if (last && word.start - last.end >= pauseSeconds) flush();
    current.push(word);
  }
  flush();
  return segments;
}
