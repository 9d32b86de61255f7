import { describe, expect, it } from 'vitest';
import { frameLayout, nearestSample, sampleAtOrAfter, sampleAtOrBefore, sampleTime } from './frames';

describe('frameLayout', () => {
  it('fits whole windows and centres the run of frames in the signal', () => {
    // 1 s at 16 kHz, 40 ms windows every 10 ms: floor(0.96 / 0.01) + 1 = 97 frames, centred.
    const l = frameLayout(16000, 16000, 0.04, 0.01);
    expect(l.frames).toBe(97);
    expect(l.start).toBeCloseTo(0.02, 12);
    expect(l.start + (l.frames - 1) * l.timeStep).toBeCloseTo(0.98, 12);
  });

  it('places frames as Praat does for the reference clip 1_b (34570 samples at 44.1 kHz)', () => {
    const l = frameLayout(34570, 44100, 3 / 75, 3 / 75 / 4);
    expect(l.frames).toBe(75);
    expect(l.start).toBeCloseTo(0.02195, 5); // the reference track's first time, 0.022
  });

  it('gives no frames when the signal is shorter than one window', () => {
    expect(frameLayout(100, 16000, 0.04, 0.01).frames).toBe(0);
  });
});

describe('sample times', () => {
  it('puts sample k at the centre of [k/fs, (k+1)/fs)', () => {
    expect(sampleTime(0, 100)).toBeCloseTo(0.005, 12);
    expect(sampleAtOrBefore(0.0149, 100)).toBe(0);
    expect(sampleAtOrBefore(0.0151, 100)).toBe(1);
    expect(sampleAtOrAfter(0.0149, 100)).toBe(1);
    expect(nearestSample(0.0099, 100)).toBe(0);
    expect(nearestSample(0.0101, 100)).toBe(1);
  });
});
