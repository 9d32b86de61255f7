import { describe, expect, it } from 'vitest';
import { fitToSlot, outerFades } from './slot-fit';

const line = { start: 10, end: 12 };

describe('fitToSlot', () => {
  it('stretches a reading to fill the slot within the limits', () => {
    expect(fitToSlot(2, line, 20)).toEqual({ stretch: 1, slot: line, overflow: 0, flags: [] });
    const slower = fitToSlot(1.8, line, 20);
    expect(slower.stretch).toBeCloseTo(2 / 1.8, 9);
    expect(slower).toMatchObject({ slot: line, overflow: 0, flags: ['stretched'] });
    expect(fitToSlot(2.4, line, 20)).toMatchObject({ stretch: 2 / 2.4, slot: line, flags: ['stretched'] });
  });

  it('uses exactly 1 / speed when the line has its own speed, then borrows or cuts as usual', () => {
    expect(fitToSlot(1.2, line, 20, undefined, 1.2)).toEqual({ stretch: 1 / 1.2, slot: line, overflow: 0, flags: ['stretched'] });
    // Slower than the slot allows: the silence after the line is borrowed.
    const slow = fitToSlot(2, line, 20, undefined, 0.8);
    expect(slow.stretch).toBe(1.25);
    expect(slow).toMatchObject({ slot: { start: 10, end: 12.5 }, flags: ['stretched', 'borrowed_silence'] });
    const cut = fitToSlot(2, line, 12.3, undefined, 0.8);
    expect(cut.slot.end).toBeCloseTo(12.2, 9);
    expect(cut.overflow).toBeCloseTo(0.3, 9);
    expect(cut.flags).toEqual(['stretched', 'borrowed_silence', 'does_not_fit']);
  });

  it('leaves a short reading short once the slowest stretch is reached', () => {
    expect(fitToSlot(1, line, 20)).toMatchObject({ stretch: 1.15, slot: line, overflow: 0 });
  });

  it('borrows silence up to a margin before the next line, then flags what does not fit', () => {
    const borrowed = fitToSlot(3, line, 20);
    expect(borrowed.stretch).toBe(0.8);
    expect(borrowed.slot.end).toBeCloseTo(12.4, 9);
    expect(borrowed.flags).toEqual(['stretched', 'borrowed_silence']);
    const tight = fitToSlot(3, line, 12.3);
    expect(tight.slot.end).toBeCloseTo(12.2, 9);
    expect(tight.overflow).toBeCloseTo(0.2, 9);
    expect(tight.flags).toEqual(['stretched', 'borrowed_silence', 'does_not_fit']);
    // No gap at all: nothing to borrow.
    expect(fitToSlot(3, line, 12)).toMatchObject({ slot: line, flags: ['stretched', 'does_not_fit'] });
  });
});

describe('outerFades', () => {
  it('uses 20 ms where there is room, less near a neighbour, never under 10 ms', () => {
    expect(outerFades(line, 5, 15, 30)).toEqual({ before: 0.02, after: 0.02 });
    expect(outerFades(line, 9.985, 12.013, 30)).toEqual({ before: expect.closeTo(0.015, 9), after: expect.closeTo(0.013, 9) });
    expect(outerFades(line, 10, 12, 30)).toEqual({ before: 0.01, after: 0.01 });
    expect(outerFades({ start: 0, end: 30 }, 0, 30, 30)).toEqual({ before: 0, after: 0 });
  });
});
