import { describe, expect, it } from 'vitest';
import { activeSegmentIndex, activeWordIndex, searchSegments, wordMatches } from './transcript-index';

const words = [
  { start: 0.5, end: 0.9 },
  { start: 1.0, end: 1.4 },
  { start: 2.0, end: 2.5 },
];

describe('activeWordIndex', () => {
  it('finds the word under the playhead and nothing in gaps', () => {
    expect(activeWordIndex(words, 0.2)).toBe(-1);
    expect(activeWordIndex(words, 0.5)).toBe(0);
    expect(activeWordIndex(words, 1.2)).toBe(1);
    expect(activeWordIndex(words, 1.7)).toBe(-1);
    expect(activeWordIndex(words, 2.49)).toBe(2);
    expect(activeWordIndex(words, 3)).toBe(-1);
  });
});

describe('activeSegmentIndex', () => {
  it('keeps the last started segment lit between segments', () => {
    const segs = [
      { start: 0, end: 2 },
      { start: 3, end: 5 },
    ];
    expect(activeSegmentIndex(segs, 2.5)).toBe(0);
    expect(activeSegmentIndex(segs, 3)).toBe(1);
    expect(activeSegmentIndex([], 3)).toBe(-1);
  });
});

describe('search', () => {
  const segs = [
    { text: 'Printing, in the only sense' },
    { text: 'Café au lait' },
    { text: 'the arts and crafts' },
  ];

  it('filters segments ignoring case and accents', () => {
    expect(searchSegments(segs, 'THE')).toEqual([0, 2]);
    expect(searchSegments(segs, 'cafe')).toEqual([1]);
    expect(searchSegments(segs, '  ')).toEqual([0, 1, 2]);
  });

  it('highlights words that contain a query term', () => {
    expect(wordMatches('Printing,', 'print')).toBe(true);
    expect(wordMatches('crafts', 'arts crafts')).toBe(true);
    expect(wordMatches('the', 'print')).toBe(false);
    expect(wordMatches('the', '')).toBe(false);
  });
});
