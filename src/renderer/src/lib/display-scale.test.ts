import { describe, expect, it } from 'vitest';
import { DISPLAY_FLOOR, displayGain, displayPeak } from './display-scale';

/** Peak buckets of `seconds` of speech-like level `level` (varying ±30 %), 50 a second, as the service sends. */
function speech(seconds: number, level: number): number[] {
  return Array.from({ length: seconds * 50 }, (_, i) => Math.round(level * (1 + 0.3 * Math.sin(i / 3)) * 1000) / 1000);
}

describe('displayPeak', () => {
  it('scales a quiet recording to its speech, not to one click in it', () => {
    const quiet = speech(80, 0.03);
    const withClick = [...quiet];
    withClick[250] = 0.9;
    const p = displayPeak(withClick);
    // The speech's own loudest level (0.039) fills the height; the click (0.9) no longer flattens it.
    expect(p).toBeGreaterThan(0.035);
    expect(p).toBeLessThanOrEqual(0.039);
    expect(p).toBe(displayPeak(quiet));
  });

  it('draws a loud recording about as it is', () => {
    expect(displayPeak(speech(30, 0.6))).toBeCloseTo(0.78, 2);
  });

  it('ignores up to 0.2 % of the buckets above the reference, at least 8', () => {
    const base = speech(100, 0.05); // 5000 buckets → 10 may exceed
    const clicks = [...base];
    for (let i = 0; i < 10; i++) clicks[i * 400] = 1;
    expect(displayPeak(clicks)).toBe(displayPeak(base));
    for (let i = 0; i < 11; i++) clicks[i * 400 + 7] = 1;
    expect(displayPeak(clicks)).toBe(1);
  });

  it('does not blow a silent file up to full height', () => {
    expect(displayPeak(new Array(500).fill(0.001))).toBe(DISPLAY_FLOOR);
    expect(displayPeak([])).toBe(1);
    expect(displayPeak([Number.NaN, 0.5, 0.5])).toBeLessThanOrEqual(0.5);
  });

  it('gives the display gain and level for the label', () => {
    const g = displayGain(0.1);
    expect(g.gain).toBeCloseTo(10, 9);
    expect(g.dbfs).toBeCloseTo(-20, 9);
  });
});
