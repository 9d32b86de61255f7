import { describe, expect, it } from 'vitest';
import type { PitchTrack } from '../../speech/prosody/pitch';
import { contourCorrelation, contourShift } from './pitch-contour';

const STEP = 0.01;
/** A track of `hz(t)` every 10 ms for `seconds` (0: unvoiced). */
function track(seconds: number, hz: (t: number) => number): PitchTrack {
  const n = Math.round(seconds / STEP);
  const f0 = Float32Array.from({ length: n }, (_, i) => hz(i * STEP));
  return { timeStep: STEP, start: 0, f0, strength: f0.map((x) => (x > 0 ? 0.9 : 0)) };
}
const same = (t: number) => t;
const at = (points: Array<{ seconds: number; semitones: number }>, t: number) => points.reduce((best, p) => (Math.abs(p.seconds - t) < Math.abs(best.seconds - t) ? p : best)).semitones;

describe('contourShift', () => {
  it('follows the difference of the two contours over time, not only their medians', () => {
    // The reading is flat at 200 Hz; the original rises from 100 to 200 Hz over the second.
    const reading = track(1, () => 200);
    const original = track(1, (t) => 100 * 2 ** t);
    const points = contourShift(reading, same, original, same, -6, 1);
    expect(points[0]!.seconds).toBe(0);
    expect(points.at(-1)!.seconds).toBeCloseTo(1, 6);
    expect(at(points, 0.2)).toBeCloseTo(-12 + 12 * 0.2, 0);
    expect(at(points, 0.5)).toBeCloseTo(-6, 0);
    expect(at(points, 0.8)).toBeCloseTo(-12 + 12 * 0.8, 0);
  });

  it("places each track by its own time map before comparing", () => {
    // The original says the same rise twice as slowly: mapped onto the reading's timeline, they agree.
    const reading = track(1, (t) => 100 * 2 ** t);
    const original = track(2, (t) => 100 * 2 ** (t / 2));
    const points = contourShift(reading, same, original, (t) => t / 2, 0, 1);
    for (const p of points.filter((q) => q.seconds > 0.1 && q.seconds < 0.9)) expect(Math.abs(p.semitones)).toBeLessThan(0.2);
  });

  it('falls back to the median shift where neither is voiced, and an octave jump of the tracker moves it no further than the spread', () => {
    const reading = track(1, (t) => (t < 0.4 ? 200 : 0));
    const original = track(1, (t) => (t < 0.4 ? (t > 0.2 && t < 0.22 ? 800 : 200) : 0));
    const points = contourShift(reading, same, original, same, 3, 1, { spread: 6 });
    expect(at(points, 0.9)).toBeCloseTo(3, 6);
    expect(at(points, 0.1)).toBeCloseTo(0, 0);
    expect(Math.max(...points.map((p) => p.semitones))).toBeLessThanOrEqual(9);
  });
});

describe('contourCorrelation', () => {
  it('is 1 for the same shape at another pitch, about −1 for a mirrored one, NaN without common voiced frames', () => {
    const rise = track(1, (t) => 100 * 2 ** t);
    expect(contourCorrelation(rise, same, track(1, (t) => 150 * 2 ** t), same)).toBeCloseTo(1, 6);
    expect(contourCorrelation(rise, same, track(1, (t) => 200 * 2 ** -t), same)).toBeCloseTo(-1, 6);
    expect(contourCorrelation(rise, same, track(1, () => 0), same)).toBeNaN();
  });
});
