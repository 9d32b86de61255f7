import { describe, expect, it } from 'vitest';
import { applyFilterbank, hzToMel, melFilterbank, melToHz } from './mel';

describe('mel scale', () => {
  it('maps 1000 Hz near 1000 mel and round-trips', () => {
    expect(hzToMel(1000)).toBeCloseTo(1000, 0);
    for (const hz of [0, 100, 440, 3000, 8000]) expect(melToHz(hzToMel(hz))).toBeCloseTo(hz, 6);
  });

  it('builds triangles that peak near 1 and stay inside the band', () => {
    const filters = melFilterbank(20, 512, 16000, 0, 8000);
    expect(filters).toHaveLength(20);
    for (const f of filters) {
      const peak = Math.max(...f.weights);
      expect(peak).toBeGreaterThan(0.5);
      expect(peak).toBeLessThanOrEqual(1);
      expect(f.start + f.weights.length).toBeLessThanOrEqual(257);
    }
    // Centres rise with the filter index.
    const centres = filters.map((f) => f.start + f.weights.indexOf(Math.max(...f.weights)));
    for (let i = 1; i < centres.length; i++) expect(centres[i]!).toBeGreaterThanOrEqual(centres[i - 1]!);
  });

  it('applies weights as a dot product', () => {
    const filters = melFilterbank(4, 16, 16000);
    const power = new Float64Array(9).fill(2);
    const out = applyFilterbank(filters, power, new Float64Array(4));
    filters.forEach((f, m) => expect(out[m]).toBeCloseTo(2 * f.weights.reduce((a, b) => a + b, 0), 12));
  });
});
