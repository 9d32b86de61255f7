import { describe, expect, it } from 'vitest';
import { frameCount } from './framing';
import { computeMfcc } from './mfcc';

function tone(hz: number, seconds: number, amplitude: number, sampleRate = 16000): Float32Array {
  return Float32Array.from(
    { length: Math.round(seconds * sampleRate) },
    (_, i) => amplitude * Math.sin((2 * Math.PI * hz * i) / sampleRate),
  );
}

describe('computeMfcc', () => {
  it('yields one 25 ms frame every 10 ms', () => {
    const { mfcc, logEnergy, hopSeconds } = computeMfcc(new Float32Array(16000));
    expect(frameCount(16000, 400, 160)).toBe(98);
    expect(mfcc.frames).toBe(98);
    expect(mfcc.dim).toBe(20);
    expect(logEnergy.length).toBe(98);
    expect(hopSeconds).toBeCloseTo(0.01, 12);
    expect(Number.isFinite(mfcc.data[0]!)).toBe(true);
  });

  it('changes only c0 when the gain changes (log of a scaled spectrum is a constant shift)', () => {
    const a = computeMfcc(tone(440, 0.2, 0.1)).mfcc;
    const b = computeMfcc(tone(440, 0.2, 0.4)).mfcc;
    const shift = b.data[0]! - a.data[0]!;
    // Power scales by 16, so every log mel energy rises by ln 16; c0 carries sqrt(N)·ln16 after the DCT.
    expect(shift).toBeCloseTo(Math.sqrt(26) * Math.log(16), 3);
    for (let c = 1; c < 20; c++) expect(b.data[c]!).toBeCloseTo(a.data[c]!, 3);
  });

  it('tells different spectra apart', () => {
    const low = computeMfcc(tone(200, 0.2, 0.3)).mfcc;
    const high = computeMfcc(tone(2500, 0.2, 0.3)).mfcc;
    let distance = 0;
    for (let c = 1; c < 20; c++) distance += (low.data[c]! - high.data[c]!) ** 2;
    expect(Math.sqrt(distance)).toBeGreaterThan(5);
  });
});
