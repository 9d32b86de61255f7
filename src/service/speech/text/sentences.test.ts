import { describe, expect, it } from 'vitest';
import { sentenceMarks, type SentenceCue } from './sentences';

/** Words 0.3 s long; `gaps[i]` is the silence after word i. */
function cues(words: string[], gaps: number[], falls: (number | null)[]): SentenceCue[] {
  let t = 0;
  return words.map((word, i) => {
    const cue = { word, start: t, end: t + 0.3, fall: falls[i] ?? null };
    t = cue.end + (gaps[i] ?? 0);
    return cue;
  });
}

describe('sentenceMarks', () => {
  it('ends the recording with a full stop and marks nothing across short gaps', () => {
    expect(sentenceMarks(cues(['we', 'went', 'home'], [0.05, 0.1], []), null)).toEqual(['', '', '.']);
  });

  it('ends a sentence at a long pause whatever the pitch does', () => {
    expect(sentenceMarks(cues(['stop', 'now'], [1.2], [-4]), 1.85)).toEqual(['.', '']);
  });

  it('tells a sentence end (pitch fell) from a clause boundary (pitch stayed up) at the same pause', () => {
    const words = ['it', 'rained', 'we', 'stayed', 'in'];
    const gaps = [0.05, 0.5, 0.05, 0.05];
    expect(sentenceMarks(cues(words, gaps, [0, 3.5, 0, 0, 3]), null)).toEqual(['', '.', '', '', '.']);
    expect(sentenceMarks(cues(words, gaps, [0, 1.5, 0, 0, 3]), null)).toEqual(['', ',', '', '', '.']);
    expect(sentenceMarks(cues(words, gaps, [0, -2, 0, 0, 3]), null)).toEqual(['', ',', '', '', '.']);
  });

  it('falls back on the pause alone where the pitch is unknown', () => {
    expect(sentenceMarks(cues(['yes', 'no'], [0.5], [null]), 1.15)).toEqual([',', '']);
    expect(sentenceMarks(cues(['yes', 'no'], [0.7], [null]), 1.35)).toEqual(['.', '']);
  });

  it('never ends anything after a word that cannot close a clause', () => {
    expect(sentenceMarks(cues(['and', 'the', 'cat'], [1.5, 0.5], [3, 3]), null)).toEqual(['', '', '.']);
  });

  it('counts a pause of exactly a threshold, and none below it', () => {
    expect(sentenceMarks(cues(['yes', 'no'], [0.45], [0]), 1.05)).toEqual([',', '']);
    expect(sentenceMarks(cues(['yes', 'no'], [0.44], [0]), 1.05)).toEqual(['', '']);
  });

  it('uses the start of the next chunk for the last word of this one', () => {
    const words = cues(['hello', 'there'], [0.05], [0, 0]);
    expect(sentenceMarks(words, words[1]!.end + 0.1)).toEqual(['', '']);
    expect(sentenceMarks(words, words[1]!.end + 1.5)).toEqual(['', '.']);
  });
});
