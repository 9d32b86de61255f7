import { describe, expect, it } from 'vitest';
import { parseFestivalWords } from './festival-words';
import { scaleWords, shiftWords } from './word-timings';
import { readingWords } from '../../dubbing/render-line';

describe("festival's word times", () => {
  it('joins the words festival expanded from one token and keeps utterances apart', () => {
    const lines = ['1:_3\t0.165\t0.43\tHello', '1:_4\t0.43\t0.61\tthere', '1:_7\t1.89\t2.3\t$5', '1:_7\t2.3\t2.8\t$5', '2:_3\t3.025\t3.115\tIt', 'garbage', ''].join('\n');
    expect(parseFestivalWords(lines)).toEqual([
      { word: 'Hello', start: 0.165, end: 0.43 },
      { word: 'there', start: 0.43, end: 0.61 },
      { word: '$5', start: 1.89, end: 2.8 },
      { word: 'It', start: 3.025, end: 3.115 },
    ]);
  });

  it('moves word times with the audio: shifted, stretched, and trimmed then placed in a dub line', () => {
    const words = [{ word: 'a', start: 0.2, end: 0.5 }];
    expect(shiftWords(words, 1.5)).toEqual([{ word: 'a', start: 1.7, end: 2 }]);
    expect(scaleWords(words, 0.5)).toEqual([{ word: 'a', start: 0.1, end: 0.25 }]);
    const placed = readingWords([{ word: 'a', start: 0.1, end: 0.3 }, { word: 'b', start: 0.3, end: 0.6 }], 0.1, 2, 10);
    expect(placed.map((w) => [w.word, +w.start.toFixed(6), +w.end.toFixed(6)])).toEqual([
      ['a', 10, 10.4],
      ['b', 10.4, 11],
    ]);
  });
});
