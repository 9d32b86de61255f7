import { describe, expect, it } from 'vitest';
import {
  DNSMOS_WINDOW,
  P808_FRAMES,
  P808_MELS,
  P808_SAMPLES,
  p808LogMel,
  p835FromRaw,
  readWindow,
  windowStarts,
} from './dnsmos-features';

const S = 16_000;

describe('windowStarts (reference)', () => {
  it('gives one window to a 9.66 s clip and to a 10.44 s clip (the README reference clips)', () => {
    expect(windowStarts(154_481, 'reference')).toEqual([0]);
    expect(windowStarts(166_960, 'reference')).toEqual([0]);
  });

  it('doubles short clips and starts a window every second of the doubled clip', () => {
    // 7 s → 14 s: trunc(14 − 9.01) + 1 = 5 windows.
    expect(windowStarts(7 * S, 'reference')).toEqual([0, 1, 2, 3, 4].map((i) => i * S));
    // 2 s doubles to 16 s (not 10 s): 7 windows, of which the 8th would be the first skipped one.
    expect(windowStarts(2 * S, 'reference')).toEqual([0, 1, 2, 3, 4, 5, 6].map((i) => i * S));
  });

  it('skips the windows whose float64 end falls one sample short, as the reference does', () => {
    const starts = windowStarts(40 * S, 'reference');
    // trunc(40 − 9.01) + 1 = 31 candidate windows; 7–23 are one sample short in floating point.
    expect(starts.map((s) => s / S)).toEqual([0, 1, 2, 3, 4, 5, 6, 24, 25, 26, 27, 28, 29, 30]);
  });

  it('returns nothing for an empty clip', () => {
    expect(windowStarts(0)).toEqual([]);
  });
});

describe('windowStarts (budget)', () => {
  it('keeps the reference windows while the reference uses at most two', () => {
    for (const n of [9.02 * S, 10.44 * S, 10.99 * S, 11.5 * S, 11.99 * S].map(Math.round))
      expect(windowStarts(n)).toEqual(windowStarts(n, 'reference'));
    expect(windowStarts(11.5 * S)).toEqual([0, S]);
    expect(windowStarts(12 * S)).toHaveLength(2);
    expect(windowStarts(12 * S, 'reference')).toHaveLength(3);
  });

  it('scores a short clip once, on the first window of its doubled version', () => {
    expect(windowStarts(7 * S)).toEqual([0]);
    expect(windowStarts(0.3 * S)).toEqual([0]);
  });

  it('covers a long clip end to end with ceil(len / 9.01 s) evenly spread windows', () => {
    const n = 60 * S;
    const starts = windowStarts(n);
    expect(starts).toHaveLength(Math.ceil(n / DNSMOS_WINDOW));
    expect(starts[0]).toBe(0);
    expect(starts.at(-1)).toBe(n - DNSMOS_WINDOW);
    for (let i = 1; i < starts.length; i++)
      expect(starts[i]! - starts[i - 1]!).toBeLessThanOrEqual(DNSMOS_WINDOW);
  });
});

describe('readWindow', () => {
  it('reads a slice, or the periodic (doubled) clip past its end', () => {
    const pcm = Float32Array.from({ length: 50_000 }, (_, i) => i);
    const w = readWindow(pcm, 0);
    expect(w).toHaveLength(DNSMOS_WINDOW);
    expect(w[49_999]).toBe(49_999);
    expect(w[50_000]).toBe(0);
    expect(w[144_159]).toBe(144_159 % 50_000);
    const shifted = readWindow(pcm, 60_000);
    expect(shifted[0]).toBe(10_000);
  });
});

describe('p808LogMel', () => {
  it('gives 900 × 120 values between −1 (−80 dB) and 1 (the loudest cell)', () => {
    const audio = Float32Array.from(
      { length: P808_SAMPLES },
      (_, i) => 0.3 * Math.sin((2 * Math.PI * 440 * i) / S) + 1e-4 * Math.sin(i * 1.7),
    );
    const mel = p808LogMel(audio);
    expect(mel).toHaveLength(P808_FRAMES * P808_MELS);
    let max = -Infinity;
    let min = Infinity;
    for (const v of mel) {
      max = Math.max(max, v);
      min = Math.min(min, v);
    }
    expect(max).toBeCloseTo(1, 6);
    expect(min).toBeGreaterThanOrEqual(-1);
    // A 440 Hz tone: Slaney mel 6.6 of 45.2 at 8 kHz, 0.371 mel per band → the loudest band is 16 or 17.
    const frame = mel.subarray(450 * P808_MELS, 451 * P808_MELS);
    const band = frame.indexOf(Math.max(...frame));
    expect(band).toBeGreaterThanOrEqual(16);
    expect(band).toBeLessThanOrEqual(17);
  });

  it('refuses a window of the wrong length', () => {
    expect(() => p808LogMel(new Float32Array(100))).toThrow(/144000/);
  });
});

describe('p835FromRaw', () => {
  it('applies the published quadratics', () => {
    const m = p835FromRaw(3, 3, 3);
    expect(m.sig).toBeCloseTo(-0.08397278 * 9 + 1.22083953 * 3 + 0.0052439, 10);
    expect(m.bak).toBeCloseTo(-0.13166888 * 9 + 1.60915514 * 3 - 0.39604546, 10);
    expect(m.ovrl).toBeCloseTo(-0.06766283 * 9 + 1.11546468 * 3 + 0.04602535, 10);
  });
});
