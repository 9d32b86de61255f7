import { describe, expect, it } from 'vitest';
import { confidenceBand, countDoubtful, nextDoubtful, wordShade } from './confidence';

const line = (...c: number[]) => ({ words: c.map((confidence) => ({ confidence })) });

describe('confidenceBand', () => {
  it('splits at 0.5 and 0.8', () => {
    expect(confidenceBand(0.49)).toBe('doubtful');
    expect(confidenceBand(0.5)).toBe('unsure');
    expect(confidenceBand(0.79)).toBe('unsure');
    expect(confidenceBand(0.8)).toBe('sure');
    expect(confidenceBand(Number.NaN)).toBe('doubtful');
  });
});

describe('doubtful words', () => {
  const lines = [line(0.9, 0.2), line(0.95), line(0.1, 0.6, 0.3)];
  it('counts them', () => {
    expect(countDoubtful(lines)).toBe(3);
    expect(countDoubtful([line(0.9)])).toBe(0);
  });
  it('walks forward and back, wrapping round', () => {
    expect(nextDoubtful(lines, null, 1)).toEqual({ line: 0, word: 1 });
    expect(nextDoubtful(lines, { line: 0, word: 1 }, 1)).toEqual({ line: 2, word: 0 });
    expect(nextDoubtful(lines, { line: 2, word: 0 }, 1)).toEqual({ line: 2, word: 2 });
    expect(nextDoubtful(lines, { line: 2, word: 2 }, 1)).toEqual({ line: 0, word: 1 });
    expect(nextDoubtful(lines, { line: 2, word: 2 }, -1)).toEqual({ line: 2, word: 0 });
    expect(nextDoubtful(lines, { line: 0, word: 1 }, -1)).toEqual({ line: 2, word: 2 });
    expect(nextDoubtful(lines, null, -1)).toEqual({ line: 2, word: 2 });
    expect(nextDoubtful([line(0.9)], null, 1)).toBeNull();
  });
});

describe('a line the editor saved whole', () => {
  const confirmed = { ...line(0.1, 0.6, 0.3), confirmed: true };
  it('shades its words confirmed, whatever the recognizer thought', () => {
    expect(wordShade(0.1, confirmed)).toBe('confirmed');
    expect(wordShade(0.1, {})).toBe('doubtful');
  });
  it('has no doubtful words left to count or walk to', () => {
    const lines = [line(0.9, 0.2), confirmed, line(0.4)];
    expect(countDoubtful(lines)).toBe(2);
    expect(nextDoubtful(lines, { line: 0, word: 1 }, 1)).toEqual({ line: 2, word: 0 });
    expect(nextDoubtful([confirmed], null, 1)).toBeNull();
  });
});
