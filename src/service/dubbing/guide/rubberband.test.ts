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

  it("with a contour, moves the pitch by each point's shift from its time on, the length and the timing kept", async () => {
    const input = tone(200, 2);
    // A gap marks time: it must stay where it was.
    input.fill(0, Math.round(0.9 * RATE), Math.round(1.1 * RATE));
    const contour = [0, 0.5, 1, 1.5, 2].map((seconds) => ({ seconds, semitones: seconds < 1 ? -3 : 4 }));
    const out = await rubberbandPitch(DEFAULT_RUBBERBAND, input, RATE, 0, undefined, contour);
    expect(out.length).toBe(input.length);
    const first = medianPitchHz(out.subarray(Math.round(0.2 * RATE), Math.round(0.8 * RATE)), RATE)!;
    const second = medianPitchHz(out.subarray(Math.round(1.3 * RATE), Math.round(1.9 * RATE)), RATE)!;
    expect(12 * Math.log2(first / 200)).toBeCloseTo(-3, 0);
    expect(12 * Math.log2(second / 200)).toBeCloseTo(4, 0);
    const rms = (from: number, to: number) => Math.sqrt(out.subarray(Math.round(from * RATE), Math.round(to * RATE)).reduce((s, x) => s + x * x, 0) / ((to - from) * RATE));
    expect(rms(0.93, 1.07)).toBeLessThan(0.02);
    expect(rms(0.7, 0.85)).toBeGreaterThan(0.2);
  });

  it('clamps a shift to an octave and gives none without both pitches', () => {
    expect(semitonesToward(100, 400)).toBe(12);
    expect(semitonesToward(null, 200)).toBe(0);
  });
});
