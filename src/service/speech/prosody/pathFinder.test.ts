import { describe, expect, it } from 'vitest';
import { findPitchPath, type PathCosts } from './pathFinder';
import type { FrameCandidates } from './periodicity';

const COSTS: PathCosts = { silenceThreshold: 0.03, voicingThreshold: 0.45, octaveCost: 0.01, octaveJumpCost: 0.35, voicedUnvoicedCost: 0.14 };

/** Frames given as lists of [frequency, strength] voiced candidates, all at full intensity. */
function candidates(frames: Array<Array<[number, number]>>, intensity = 1): FrameCandidates {
  const slots = 1 + Math.max(...frames.map((f) => f.length));
  const c: FrameCandidates = {
    frames: frames.length,
    start: 0.02,
    timeStep: 0.01,
    ceiling: 600,
    slots,
    count: Int32Array.from(frames, (f) => 1 + f.length),
    frequency: new Float64Array(frames.length * slots),
    strength: new Float64Array(frames.length * slots),
    intensity: new Float64Array(frames.length).fill(intensity),
  };
  frames.forEach((f, i) =>
    f.forEach(([freq, s], k) => {
      c.frequency[i * slots + 1 + k] = freq;
      c.strength[i * slots + 1 + k] = s;
    }),
  );
  return c;
}

describe('findPitchPath', () => {
  it('keeps a contour instead of jumping an octave for a slightly stronger candidate', () => {
    // Frame 2 has its octave-down candidate a little stronger; jumping there and back costs 2 × 0.35.
    const c = candidates([[[200, 0.9]], [[200, 0.9]], [[200, 0.85], [100, 0.9]], [[200, 0.9]], [[200, 0.9]]]);
    const path = findPitchPath(c, COSTS);
    expect(Array.from(path, (k, f) => c.frequency[f * c.slots + k])).toEqual([200, 200, 200, 200, 200]);
  });

  it('takes the stronger octave when the whole stretch prefers it', () => {
    const c = candidates(new Array(5).fill([[200, 0.6], [100, 0.9]]));
    const path = findPitchPath(c, COSTS);
    expect(Array.from(path, (k, f) => c.frequency[f * c.slots + k])).toEqual([100, 100, 100, 100, 100]);
  });

  it('chooses unvoiced where candidates are weaker than the voicing threshold or the frame is silent', () => {
    const weak = candidates(new Array(4).fill([[150, 0.3]]));
    expect(Array.from(findPitchPath(weak, COSTS))).toEqual([0, 0, 0, 0]);
    const quiet = candidates(new Array(4).fill([[150, 0.95]]), 0.001);
    expect(Array.from(findPitchPath(quiet, COSTS))).toEqual([0, 0, 0, 0]);
  });

  it('does not switch voicing for a single weak frame inside a voiced stretch', () => {
    const c = candidates([[[150, 0.9]], [[150, 0.9]], [[150, 0.4]], [[150, 0.9]], [[150, 0.9]]]);
    expect(Array.from(findPitchPath(c, COSTS))).toEqual([1, 1, 1, 1, 1]);
  });

  it('treats candidates at or above the ceiling as unvoiced', () => {
    const c = candidates([[[700, 0.99]], [[700, 0.99]]]);
    const path = findPitchPath(c, COSTS);
    // Both slots score as unvoiced; the first (the unvoiced one) wins the tie.
    expect(Array.from(path)).toEqual([0, 0]);
  });

  it('handles an empty signal', () => {
    expect(findPitchPath(candidates([]), COSTS).length).toBe(0);
  });
});
