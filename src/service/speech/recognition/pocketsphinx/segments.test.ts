import { describe, expect, it } from 'vitest';
import { wordsToSegments } from './segments';

describe('wordsToSegments', () => {
  it('breaks at long pauses and averages log posteriors', () => {
    const w = (word: string, start: number, end: number, confidence = 1) => ({
      word,
      start,
      end,
      confidence,
    });
    const segs = wordsToSegments([w('a', 0, 0.2, Math.E ** -1), w('b', 0.3, 0.5), w('c', 1.5, 1.8)], 0.6);
    expect(segs.map((s) => [s.text, s.start, s.end])).toEqual([
      ['a b', 0, 0.5],
      ['c', 1.5, 1.8],
    ]);
    expect(segs[0]!.avgLogprob).toBeCloseTo(-0.5);
    expect(segs[1]!.avgLogprob).toBe(0);
    expect(wordsToSegments([], 0.6)).toEqual([]);
  });
});
