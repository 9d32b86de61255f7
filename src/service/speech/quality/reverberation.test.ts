import { describe, expect, it } from 'vitest';
import { decayRate } from './reverberation';

const RATE = 16_000;

/** Frame powers (10 ms) of bursts that stop and decay exponentially at `rateDbPerS`, over a noise floor. */
function bursts(rateDbPerS: number, noisePower: number, count = 20): Float64Array {
  const frames: number[] = [];
  for (let b = 0; b < count; b++) {
    for (let t = 0; t < 20; t++) frames.push(1e-2); // 200 ms of speech at −20 dB
    for (let t = 0; t < 60; t++) frames.push(1e-2 * 10 ** ((-rateDbPerS * (t + 1) * 0.01) / 10) + noisePower);
  }
  return Float64Array.from(frames);
}

describe('decayRate', () => {
  it('reads the decay rate of the fast end of the offsets', () => {
    for (const rate of [60, 120, 300]) {
      const got = decayRate(bursts(rate, 0), 0, RATE)!;
      // Slopes over 150 ms starting within 20 dB of the top: a pure exponential gives the rate itself
      // (and less where a slope straddles the burst's end).
      expect(got).toBeGreaterThan(rate * 0.8);
      expect(got).toBeLessThanOrEqual(rate * 1.01);
    }
  });

  it('is not stopped early by a known noise floor', () => {
    const noise = 1e-2 * 10 ** (-25 / 10);
    const withNoise = decayRate(bursts(300, noise), noise, RATE)!;
    const ignored = decayRate(bursts(300, noise), 0, RATE)!;
    expect(withNoise).toBeGreaterThan(240);
    expect(ignored).toBeLessThan(withNoise);
  });

  it('says nothing about a line with too few loud frames', () => {
    expect(decayRate(new Float64Array(10), 0, RATE)).toBeNull();
    expect(
      decayRate(
        Float64Array.from({ length: 100 }, (_, t) => (t < 10 ? 1 : 1e-9)),
        0,
        RATE,
      ),
    ).toBeNull();
  });
});
