import { describe, expect, it } from 'vitest';
import { agreement, clipValue, compareTracks, meetsTargets } from './compare';

describe('clipValue', () => {
  it('weights lines by duration and skips undefined ones', () => {
    expect(clipValue([{ duration: 1, value: 100 }, { duration: 3, value: 200 }, { duration: 5, value: null }])).toBe(175);
    expect(clipValue([{ duration: 2, value: null }])).toBeNull();
  });
});

describe('agreement', () => {
  it('summarises relative and absolute differences and counts one-sided values', () => {
    const a = agreement([
      { mine: { pitch: 101, jitter: 0.011, shimmer: 0.1, hnr: 10 }, praat: { pitch: 100, jitter: 0.01, shimmer: 0.1, hnr: 11 } },
      { mine: { pitch: 110, jitter: null, shimmer: 0.05, hnr: 12 }, praat: { pitch: 100, jitter: 0.02, shimmer: 0.05, hnr: 12 } },
    ]);
    expect(a.pitchWithin3).toBe(0.5);
    expect(a.pitchMedianRel).toBeCloseTo(0.055, 12);
    expect(a.jitterClips).toBe(1);
    expect(a.jitterMedianRel).toBeCloseTo(0.1, 12);
    expect(a.hnrMedianAbsDb).toBeCloseTo(0.5, 12);
    expect(a.definedMismatch).toBe(1);
    expect(meetsTargets(a)).toBe(false); // only half the pitches within 3%
  });
});

describe('compareTracks', () => {
  it('pairs frames by time and scores voicing and F0', () => {
    const mine = { times: [0.02, 0.03, 0.04, 0.05], f0: [0, 100, 210, 0] };
    const ref = { times: [0.0201, 0.0301, 0.0401, 0.0501, 0.09], f0: [0, 100, 200, 150, 120] };
    const t = compareTracks(mine, ref);
    expect(t.frames).toBe(4); // 0.09 has no frame of ours
    expect(t.voicingAgree).toBe(3);
    expect(t.voicedBoth).toBe(2);
    expect(t.errors).toEqual([0, 0.05]);
  });
});
