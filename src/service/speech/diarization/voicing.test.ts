import { describe, expect, it } from 'vitest';
import { rng } from './synthetic.testutil';
import { frameVoicing } from './voicing';

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
