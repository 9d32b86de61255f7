import { describe, expect, it } from 'vitest';
import { degraded, describeDegradation } from './degrade';

const RATE = 16_000;

function tone(hz: number, seconds = 1): Float32Array {
  return Float32Array.from({ length: RATE * seconds }, (_, i) => Math.sin((2 * Math.PI * hz * i) / RATE));
}

/** Power of the second half (the filters have settled), dB relative to a full-scale sine's. */
function powerDb(x: Float32Array): number {
  let sum = 0;
  for (let i = x.length / 2; i < x.length; i++) sum += x[i]! * x[i]!;
  return 10 * Math.log10(sum / (x.length / 2) / 0.5);
}

describe('a telephone line', () => {
  it('passes the voice band and takes away what lies outside 300–3400 Hz', async () => {
    const line = { telephone: true };
    expect(powerDb(await degraded(tone(1000), line, 0))).toBeGreaterThan(-0.5);
    expect(powerDb(await degraded(tone(2500), line, 0))).toBeGreaterThan(-0.5);
    // 8th-order low-pass at 3400 Hz: about 39 dB down at 6 kHz; 4th-order high-pass at 300 Hz: 38 dB at 100 Hz.
    expect(powerDb(await degraded(tone(6000), line, 0))).toBeLessThan(-35);
    expect(powerDb(await degraded(tone(100), line, 0))).toBeLessThan(-35);
    expect(describeDegradation(line)).toBe('telephone band 300–3400 Hz');
  });

  it('leaves a clip as it is when asked for nothing', async () => {
    const clip = tone(440);
    expect(await degraded(clip, {}, 0)).toBe(clip);
  });
});
