import { describe, expect, it } from 'vitest';
import { deltas } from './deltas';
import { createFeatureMatrix } from './features';

describe('deltas', () => {
  it('gives the slope of a linear ramp away from the edges', () => {
    const m = createFeatureMatrix(10, 2);
    for (let t = 0; t < 10; t++) {
      m.data[t * 2] = 3 * t;
      m.data[t * 2 + 1] = -0.5 * t + 7;
    }
    const d = deltas(m, 2);
    for (let t = 2; t < 8; t++) {
      expect(d.data[t * 2]).toBeCloseTo(3, 6);
      expect(d.data[t * 2 + 1]).toBeCloseTo(-0.5, 6);
    }
    // Edges repeat the end frame, so the estimate shrinks there but keeps its sign.
    expect(d.data[0]!).toBeGreaterThan(0);
    expect(d.data[0]!).toBeLessThan(3);
  });

  it('is zero for a constant signal', () => {
    const m = createFeatureMatrix(5, 1);
    m.data.fill(4);
    expect(Array.from(deltas(m).data)).toEqual([0, 0, 0, 0, 0]);
  });
});
