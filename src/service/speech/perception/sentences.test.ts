import { describe, expect, it } from 'vitest';
import { isPunctuated, sentenceEnds, type SentenceWord } from './sentences';

const w = (word: string, start: number, end: number, pitch: number | null = 120, endPitch: number | null = pitch): SentenceWord => ({
  word,
  start,
  end,
  pitch_hz: pitch,
  end_pitch_hz: endPitch,
});

describe('sentence ends', () => {
  it('follows the punctuation when the transcript has it', () => {
    const words = [w('We', 0, 0.2), w('went.', 0.2, 0.5, 120, 120), w('Then', 0.9, 1.1), w('home?', 1.1, 1.5)];
    expect(sentenceEnds(words, true)).toEqual([1, 3]);
    expect(isPunctuated([{ words }])).toBe(true);
    expect(isPunctuated([{ words: [{ word: 'we' }, { word: 'went' }] }])).toBe(false);
  });

  it('without punctuation: a pause after a pitch fall of 3 st or more below the line median (the transcript rule)', () => {
    // Median word pitch 120 Hz; 100 Hz is 3.2 st below, 106 Hz only 2.1 st.
    const words = [w('we', 0, 0.3), w('went', 0.3, 0.6, 120, 100), w('then', 1.1, 1.3), w('it', 1.3, 1.5, 120, 106), w('rained', 2.0, 2.3, 118, 100)];
    // "went": fall and a 0.5 s pause → end. "it": a pause but too small a fall. "rained": ends the line with a fall.
    expect(sentenceEnds(words, false)).toEqual([1, 4]);
  });

  it('a fall without a pause is no sentence end, and an unvoiced ending says nothing', () => {
    const words = [w('we', 0, 0.3), w('went', 0.3, 0.6, 120, 100), w('on', 0.65, 0.9, 120, null)];
    expect(sentenceEnds(words, false)).toEqual([]);
  });

  it('a very long pause ends a sentence whatever the pitch; a function word ends none', () => {
    const words = [w('we', 0, 0.3), w('waited', 0.3, 0.7, 120, 125), w('for', 2.2, 2.4, 120, 100), w('it', 2.9, 3.1, 120, 125)];
    expect(sentenceEnds(words, false)).toEqual([1]);
  });

  it('fillers are skipped when looking for the next word', () => {
    const words = [w('so', 0, 0.3), w('done', 0.3, 0.6, 120, 95), { ...w('uh', 0.62, 0.8), filler: true }, w('and', 1.1, 1.2)];
    expect(sentenceEnds(words, false)).toEqual([1]);
  });
});
