import { describe, expect, it } from 'vitest';
import { hysteresisRuns, mergeClose } from './hysteresis';

describe('hysteresisRuns', () => {
  it('keeps stretches above the exit threshold that reach the enter threshold', () => {
    const scores = [0, 0.1, 0.4, 0.6, 0.2, 0.05, 0.3, 0.35, 0.1, 0, 0.8];
    expect(hysteresisRuns(scores, 0.5, 0.1)).toEqual([
      { first: 1, last: 4, peak: 0.6 },
      { first: 10, last: 10, peak: 0.8 },
    ]);
  });

  it('does not flicker around one threshold: a dip above exit stays inside the run', () => {
    const scores = [0.6, 0.45, 0.6, 0.45, 0.6];
    expect(hysteresisRuns(scores, 0.5, 0.3)).toHaveLength(1);
    expect(hysteresisRuns(scores, 0.5, 0.5)).toHaveLength(3);
  });

  it('finds nothing below the enter threshold and refuses inverted thresholds', () => {
    expect(hysteresisRuns([0.2, 0.3, 0.2], 0.5, 0.1)).toEqual([]);
    expect(() => hysteresisRuns([0.2], 0.1, 0.5)).toThrow(/above enter/);
  });
});

describe('mergeClose', () => {
  it('joins spans closer than the gap and keeps the others apart', () => {
    const spans = [
      { start: 0, end: 1, n: 1 },
      { start: 1.4, end: 2, n: 2 },
      { start: 3.5, end: 4, n: 4 },
    ];
    const merged = mergeClose(spans, 0.5, (a, b) => ({ start: a.start, end: b.end, n: a.n + b.n }));
    expect(merged).toEqual([
      { start: 0, end: 2, n: 3 },
      { start: 3.5, end: 4, n: 4 },
    ]);
  });
});
