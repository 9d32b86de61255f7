import { describe, expect, it } from 'vitest';
import { rubberbandPitch, DEFAULT_RUBBERBAND } from './rubberband';
import { medianPitchHz, semitonesToward } from './guide-line';

const RATE = 16000;

function tone(hz: number, seconds: number): Float32Array {
  return Float32Array.from({ length: Math.round(seconds * RATE) }, (_, i) => 0.5 * Math.sin((2 * Math.PI * hz * i) / RATE));
}

describe('rubberbandPitch', () => {
  it('moves the pitch by the semitones asked and keeps the length to the frame', async () => {
    const shift = semitonesToward(150, 200);
    expect(shift).toBeCloseTo(12 * Math.log2(200 / 150), 9);
    const input = tone(150, 1);
    expect(medianPitchHz(input, RATE)).toBeCloseTo(150, 0);
    const out = await rubberbandPitch(DEFAULT_RUBBERBAND, input, RATE, shift);
    expect(out.length).toBe(input.length);
    const hz = medianPitchHz(out.subarray(Math.round(0.2 * RATE), Math.round(0.8 * RATE)), RATE)!;
    expect(Math.abs(12 * Math.log2(hz / 200))).toBeLessThan(0.1);
  });

  it('clamps a shift to an octave and gives none without both pitches', () => {
    expect(semitonesToward(100, 400)).toBe(12);
    expect(semitonesToward(null, 200)).toBe(0);
  });
});
