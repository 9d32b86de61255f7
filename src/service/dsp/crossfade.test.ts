import { describe, expect, it } from 'vitest';
import { crossfadeRegion, equalPowerGains } from './crossfade';

describe('equal-power crossfade', () => {
  it('keeps the summed power of the two gains at 1 all the way through', () => {
    for (let x = 0; x <= 1; x += 0.05) {
      const { fadeIn, fadeOut } = equalPowerGains(x);
      expect(fadeIn ** 2 + fadeOut ** 2).toBeCloseTo(1, 12);
    }
    expect(equalPowerGains(0)).toEqual({ fadeIn: 0, fadeOut: 1 });
    expect(equalPowerGains(1).fadeIn).toBe(1);
  });

  it('fades in, holds the incoming signal exactly, and fades out, per channel', () => {
    const channels = 2;
    const frames = 20;
    const current = new Float32Array(frames * channels).fill(1);
    const incoming = Float32Array.from({ length: frames * channels }, (_, i) => (i % 2 === 0 ? 0.25 : -0.5));
    const out = crossfadeRegion(current, incoming, channels, 4, 6);
    for (let f = 4; f < frames - 6; f++) {
      expect(out[f * 2]).toBe(incoming[f * 2]);
      expect(out[f * 2 + 1]).toBe(incoming[f * 2 + 1]);
    }
    // First frame mostly the current signal, rising towards the incoming one.
    expect(out[0]).toBeGreaterThan(0.9);
    expect(out[0]! - out[2]!).toBeGreaterThan(0);
    expect(out[(frames - 1) * 2]).toBeGreaterThan(0.9);
    expect(() => crossfadeRegion(current, incoming.subarray(2), channels, 1, 1)).toThrow(RangeError);
    expect(() => crossfadeRegion(current, incoming, channels, 15, 6)).toThrow(RangeError);
  });
});
