import { describe, expect, it } from 'vitest';
import { rng } from './synthetic.testutil';
import { framePitch, frameVoicing } from './voicing';

describe('frameVoicing', () => {
  it('is near 1 for a periodic frame and low for noise', () => {
    const tone = Float32Array.from({ length: 1600 }, (_, i) => Math.sin((2 * Math.PI * 150 * i) / 16000));
    const r = rng(5);
    const noise = Float32Array.from({ length: 1600 }, () => r() - 0.5);
    const toneV = frameVoicing(tone, 5, 160, 400);
    const noiseV = frameVoicing(noise, 5, 160, 400);
    toneV.forEach((v) => expect(v).toBeGreaterThan(0.95));
    noiseV.forEach((v) => expect(v).toBeLessThan(0.5));
  });
});

describe('framePitch', () => {
  it('finds the period of a voice-like pulse train', () => {
    // 200 Hz with harmonics (a sawtooth-like sum), so the first peak is the period, not a multiple.
    const pcm = Float32Array.from({ length: 1600 }, (_, i) => {
      let s = 0;
      for (let h = 1; h <= 5; h++) s += Math.sin((2 * Math.PI * 200 * h * i) / 16000) / h;
      return s;
    });
    const { voicing, f0 } = framePitch(pcm, 5, 160, 400);
    voicing.forEach((v) => expect(v).toBeGreaterThan(0.95));
    f0.forEach((hz) => expect(Math.abs(hz - 200)).toBeLessThan(10));
  });
});
