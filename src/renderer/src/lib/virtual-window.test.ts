import { describe, expect, it } from 'vitest';
import { estimateRowHeight, rowAt, rowOffsets, visibleRange } from './virtual-window';

describe('virtual window', () => {
  const offsets = rowOffsets([10, 20, 30, 40]);

  it('sums heights into offsets', () => {
    expect([...offsets]).toEqual([0, 10, 30, 60, 100]);
  });

  it('finds the row under a y position', () => {
    expect(rowAt(offsets, 0)).toBe(0);
    expect(rowAt(offsets, 9.9)).toBe(0);
    expect(rowAt(offsets, 10)).toBe(1);
    expect(rowAt(offsets, 65)).toBe(3);
    expect(rowAt(offsets, 1000)).toBe(3);
  });

  it('renders only rows in view plus overscan', () => {
    expect(visibleRange(offsets, 15, 20, 0)).toEqual({ start: 1, end: 3 });
    expect(visibleRange(offsets, 15, 20, 1)).toEqual({ start: 0, end: 4 });
    expect(visibleRange(rowOffsets([]), 0, 100)).toEqual({ start: 0, end: 0 });
  });

  it('keeps a 1000-row window small', () => {
    const big = rowOffsets(new Array(1000).fill(50));
    const r = visibleRange(big, 25_000, 600, 3);
    expect(r.end - r.start).toBeLessThanOrEqual(20);
    expect(r.start).toBe(497);
  });

  it('estimates taller rows for longer text', () => {
    expect(estimateRowHeight(10, 60, 20, 24)).toBe(44);
    expect(estimateRowHeight(130, 60, 20, 24)).toBe(84);
  });
});
