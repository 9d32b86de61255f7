import { describe, expect, it } from 'vitest';
import { mapTime, scaleTargets, targetLength, wordTimeMap } from './time-map';

describe('wordTimeMap', () => {
  it('pairs each word start and end, keeping the lead and the tail', () => {
    const reading = [
      { start: 0.1, end: 0.4 },
      { start: 0.5, end: 0.9 },
    ];
    const original = [
      { start: 0.3, end: 0.5 },
      { start: 0.8, end: 1.4 },
    ];
    const anchors = wordTimeMap(reading, original, 1.0);
    expect(anchors).toEqual([
      { source: 0, target: expect.closeTo(0.2, 9) },
      { source: 0.1, target: 0.3 },
      { source: 0.4, target: 0.5 },
      { source: 0.5, target: 0.8 },
      { source: 0.9, target: 1.4 },
      { source: 1.0, target: expect.closeTo(1.5, 9) },
    ]);
    // Every word lands exactly where the original's is; time between anchors is linear.
    for (let i = 0; i < 2; i++) {
      expect(mapTime(anchors, reading[i]!.start)).toBeCloseTo(original[i]!.start, 9);
      expect(mapTime(anchors, reading[i]!.end)).toBeCloseTo(original[i]!.end, 9);
    }
    expect(mapTime(anchors, 0.7)).toBeCloseTo(1.1, 9);
    expect(targetLength(anchors)).toBeCloseTo(1.5, 9);
  });

  it('pairs only the first onset and the last end when the word counts differ', () => {
    const anchors = wordTimeMap(
      [
        { start: 0.2, end: 0.5 },
        { start: 0.6, end: 1.0 },
      ],
      [{ start: 0.1, end: 1.7 }],
      1.2,
    );
    expect(anchors.map((a) => [a.source, a.target])).toEqual([
      [0, 0],
      [0.2, 0.1],
      [1.0, 1.7],
      [1.2, expect.closeTo(1.9, 9)],
    ]);
  });

  it('drops anchors that would run time backwards or beyond the rate limits', () => {
    const anchors = wordTimeMap(
      [
        { start: 0.1, end: 0.3 },
        { start: 0.4, end: 0.6 },
        { start: 0.7, end: 0.9 },
      ],
      [
        { start: 0.1, end: 0.3 },
        { start: 0.2, end: 0.25 }, // starts before the previous word ends
        { start: 0.7, end: 0.9 },
      ],
      1,
    );
    const targets = anchors.map((a) => a.target);
    for (let i = 1; i < anchors.length; i++) {
      expect(anchors[i]!.source).toBeGreaterThan(anchors[i - 1]!.source);
      expect(targets[i]!).toBeGreaterThan(targets[i - 1]!);
      const ratio = (targets[i]! - targets[i - 1]!) / (anchors[i]!.source - anchors[i - 1]!.source);
      expect(ratio).toBeGreaterThanOrEqual(0.25);
      expect(ratio).toBeLessThanOrEqual(4);
    }
    expect(anchors.map((a) => a.source)).toEqual([0, 0.1, 0.3, 0.7, 0.9, 1]);
  });

  it('maps a reading without words onto itself', () => {
    const anchors = wordTimeMap([], [], 0.8);
    expect(mapTime(anchors, 0.5)).toBeCloseTo(0.5, 9);
    expect(targetLength(anchors)).toBeCloseTo(0.8, 9);
  });

  it('scales the targets to fit a shorter slot', () => {
    const anchors = scaleTargets(wordTimeMap([{ start: 0, end: 1 }], [{ start: 0.5, end: 2.5 }], 1), 0.5);
    expect(targetLength(anchors)).toBeCloseTo(1.25, 9);
    expect(mapTime(anchors, 1)).toBeCloseTo(1.25, 9);
  });
});
