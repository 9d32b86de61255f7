import { describe, expect, it } from 'vitest';
import { paceShifts, type PaceLine } from './pace-shift';

/** Lines of 4 s articulation each, one after another, at the given syllable rates. */
function lines(speaker: string, rates: number[], t0 = 0): PaceLine[] {
  return rates.map((rate, i) => ({ id: i, speaker, start: t0 + i * 5, end: t0 + i * 5 + 4.5, syllables: Math.round(rate * 4), articulation_seconds: 4 }));
}

describe('paceShifts', () => {
  it('finds one shift where a speaker slows down by a third', () => {
    const events = paceShifts(lines('S1', [5, 5, 5, 5, 3.25, 3.25, 3.25, 3.25]));
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'pace_shift', speaker: 'S1', direction: 'slower', at: 20, start: 10, source: 'measured' });
    expect(events[0]!.change).toBeCloseTo(-0.35, 2);
  });

  it('reports nothing for steady speech with ordinary variation, or too little speech', () => {
    expect(paceShifts(lines('S1', [5, 5.5, 4.75, 5.25, 5, 4.5, 5.5, 5]))).toEqual([]);
    expect(paceShifts(lines('S1', [5, 3]))).toEqual([]);
  });

  it('keeps speakers apart and reports speeding up', () => {
    const mixed = [...lines('S1', [4, 4, 4, 6, 6, 6], 0), ...lines('S2', [5, 5, 5, 5, 5, 5], 2)];
    const events = paceShifts(mixed);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ speaker: 'S1', direction: 'faster' });
    expect(events[0]!.change).toBeCloseTo(0.5, 2);
  });
});
