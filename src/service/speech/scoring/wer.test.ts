import { describe, expect, it } from 'vitest';
import { alignWords, alignmentPath, cardinalWords, normalizeWords, sumWer, wordErrorRate, yearWords } from './wer';

describe('normalizeWords', () => {
  it('folds case and punctuation, keeps inner apostrophes, splits hyphens', () => {
    expect(normalizeWords('The "forty-two line Bible," don\'t; God bless \'em!')).toEqual([
      'the',
      'forty',
      'two',
      'line',
      'bible',
      "don't",
      'god',
      'bless',
      'em',
    ]);
    expect(normalizeWords('It\u2019s i.e. A&B')).toEqual(["it's", 'i', 'e', 'a', 'and', 'b']);
  });

  it('spells numbers as spoken', () => {
    expect(normalizeWords('in 1455 there were 42 of 1,000 books')).toEqual(
      'in fourteen fifty five there were forty two of one thousand books'.split(' '),
    );
    expect(normalizeWords('the 21st of 3.5% for $12')).toEqual(
      'the twenty first of three point five percent for twelve dollars'.split(' '),
    );
    expect(normalizeWords('Mr. Dashwood')).toEqual(['mister', 'dashwood']);
  });
});

describe('number words', () => {
  it('reads cardinals and years', () => {
    expect(cardinalWords(0)).toBe('zero');
    expect(cardinalWords(115)).toBe('one hundred fifteen');
    expect(cardinalWords(2_000_017)).toBe('two million seventeen');
    expect(yearWords(1900)).toBe('nineteen hundred');
    expect(yearWords(1805)).toBe('eighteen oh five');
    expect(normalizeWords('2005')).toEqual(['two', 'thousand', 'five']);
  });
});

describe('alignWords', () => {
  it('counts substitutions, deletions and insertions', () => {
    const r = alignWords('a b c d'.split(' '), 'a x c d e'.split(' '));
    expect(r).toMatchObject({ substitutions: 1, deletions: 0, insertions: 1, hits: 3, referenceWords: 4 });
    expect(r.wer).toBeCloseTo(0.5);
    const d = alignWords('a b c'.split(' '), ['c']);
    expect(d).toMatchObject({ substitutions: 0, deletions: 2, insertions: 0, hits: 1 });
  });

  it('gives the path it counted, in order', () => {
    expect(alignmentPath('a b c d'.split(' '), 'a x c d e'.split(' '))).toEqual([
      { ref: 0, hyp: 0 },
      { ref: 1, hyp: 1 },
      { ref: 2, hyp: 2 },
      { ref: 3, hyp: 3 },
      { ref: null, hyp: 4 },
    ]);
    expect(alignmentPath('a b c'.split(' '), ['c'])).toEqual([
      { ref: 0, hyp: null },
      { ref: 1, hyp: null },
      { ref: 2, hyp: 0 },
    ]);
  });

  it('handles empty sides', () => {
    expect(alignmentPath([], [])).toEqual([]);
    expect(alignWords([], []).wer).toBe(0);
    expect(alignWords([], ['a']).wer).toBe(1);
    expect(alignWords(['a', 'b'], []).wer).toBe(1);
  });

  it('scores normalised text and pools by words', () => {
    expect(wordErrorRate('Hello, World!', 'hello world').wer).toBe(0);
    const pooled = sumWer([wordErrorRate('a b c d', 'a b c d'), wordErrorRate('e f', 'e')]);
    expect(pooled.deletions).toBe(1);
    expect(pooled.wer).toBeCloseTo(1 / 6);
  });
});

describe('written transcripts (speech/text)', () => {
  it('score exactly as the recognizer\'s bare words: case and the added punctuation normalise away', () => {
    const ref = 'I hope Mr. Newman will come, said the keeper. It is late';
    const bare = "i hope mister newman will come said the keeper it's late";
    const written = "I hope Mister Newman will come, said the keeper. It's late.";
    expect(normalizeWords(written)).toEqual(normalizeWords(bare));
    expect(wordErrorRate(ref, written)).toEqual(wordErrorRate(ref, bare));
  });
});
