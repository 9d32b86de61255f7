import { describe, expect, it } from 'vitest';
import { createRnnoiseDenoiser } from './rnnoise';
import { gainForSnr, haveAudio, loadAudio, mix, power, whiteNoise } from '../quality/signals.testutil';

/** SNR of `x` as an estimate of `clean`: clean power over the power of what differs. */
function snrAgainst(clean: Float32Array, x: Float32Array): number {
  let err = 0;
  for (let i = 0; i < clean.length; i++) err += (x[i]! - clean[i]!) ** 2;
  return 10 * Math.log10((power(clean) * clean.length) / err);
}

describe.skipIf(!haveAudio)('RNNoise denoiser', () => {
  const denoiser = createRnnoiseDenoiser();

  it('takes most of a steady noise away and leaves the speech where it was', async () => {
    const clean = await loadAudio('asr/jfk_jfk.flac');
    const noise = whiteNoise(clean.length, 7);
    const noisy = mix(clean, noise, gainForSnr(clean, noise, 5));
    const out = await denoiser.denoise(noisy);
    expect(out.length).toBe(noisy.length);
    // The speech is nearer the clean recording than the input was, sample for sample: nothing moved in time.
    expect(snrAgainst(clean, out) - snrAgainst(clean, noisy)).toBeGreaterThan(5);
    // In the pauses the noise is brought down by more than 20 dB.
    const pause = (x: Float32Array) => power(x.subarray(2.4 * 16_000, 3.2 * 16_000));
    expect(10 * Math.log10(pause(out) / pause(noisy))).toBeLessThan(-20);
  });

  it('rejects other sample rates and returns nothing for nothing', async () => {
    await expect(denoiser.denoise(new Float32Array(10), 8000)).rejects.toThrow(/16000 Hz/);
    expect((await denoiser.denoise(new Float32Array(0))).length).toBe(0);
  });
});
