import { describe, expect, it } from 'vitest';
import { distribute, labelsForNames, lineStarts, orderTimes, speakersByOverlap } from './script-lines';

describe('speakersByOverlap', () => {
  const spans = [
    { start: 0, end: 2, speaker: 'S1' },
    { start: 2, end: 5, speaker: 'S2' },
    { start: 8, end: 9, speaker: 'S1' },
  ];
  it('gives each word the speaker it overlaps most, or the nearest', () => {
    const words = [
      { start: 0.5, end: 1 },
      { start: 1.8, end: 2.6 },
      { start: 1.5, end: 2.1 },
      { start: 5.5, end: 6 },
      { start: 7.2, end: 7.5 },
      { start: 10, end: 11 },
    ];
    expect(speakersByOverlap(words, spans)).toEqual(['S1', 'S2', 'S1', 'S2', 'S1', 'S1']);
    expect(speakersByOverlap(words, [])).toEqual(words.map(() => null));
  });
});

describe('labelsForNames', () => {
  it('keeps labels and fixed names, then gives each other name the voice its lines overlap longest', () => {
    const words = [
      { name: 'ADA', diarized: 'S2', seconds: 3 },
      { name: 'ADA', diarized: 'S1', seconds: 1 },
      { name: 'BOB', diarized: 'S2', seconds: 2 },
      { name: 'BOB', diarized: 'S1', seconds: 1.5 },
      { name: 'CY', diarized: 'S1', seconds: 1 },
      { name: 'S4', diarized: 'S1', seconds: 1 },
      { name: 'Dee', diarized: 'S1', seconds: 5 },
    ];
    const labels = labelsForNames(['ADA', 'BOB', 'CY', 'S4', 'Dee'], words, new Map([['Dee', 'S3']]), ['S1', 'S2', 'S3']);
    expect(Object.fromEntries(labels)).toEqual({ ADA: 'S2', BOB: 'S1', CY: 'S5', S4: 'S4', Dee: 'S3' });
  });
});

describe('orderTimes and distribute', () => {
  it('makes times ordered and non-overlapping within the recording', () => {
    const w = orderTimes([{ start: 1, end: 2 }, { start: 1.5, end: 1.8 }, { start: 3, end: 9 }], 5);
    expect(w).toEqual([{ start: 1, end: 2 }, { start: 2, end: 2 }, { start: 3, end: 5 }]);
  });
  it('spreads words over a span by letters', () => {
    expect(distribute(['ab', 'abcd,', '—'], { start: 1, end: 8 })).toEqual([{ start: 1, end: 3 }, { start: 3, end: 7 }, { start: 7, end: 8 }]);
  });
});

describe('lineStarts', () => {
  const w = (text: string, start: number, extra: Partial<{ line: number; speaker: string; sentenceEnd: boolean }> = {}) => ({
    text,
    start,
    end: start + 0.3,
    line: 0,
    speaker: 'S1',
    sentenceEnd: /[.?!]$/.test(text),
    ...extra,
  });
  it('cuts at script lines, sentence ends, speaker changes, pauses and length', () => {
    const words = [
      w('One', 0),
      w('two.', 0.4),
      w('Three', 0.8),
      w('four', 1.2, { speaker: 'S2' }),
      w('five', 3, { speaker: 'S2' }),
      w('six', 3.4, { line: 1, speaker: 'S2' }),
      w('seven', 3.8, { line: 1, speaker: 'S2' }),
    ];
    expect(lineStarts(words)).toEqual([0, 2, 3, 4, 5]);
    expect(lineStarts(words.slice(5), { maxChars: 8 })).toEqual([0, 1]);
  });
});
