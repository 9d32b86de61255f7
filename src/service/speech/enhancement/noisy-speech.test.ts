import { describe, expect, it } from 'vitest';
import { chunkSnrDb, denoisedIfNoisy, NOISY_BELOW_SNR_DB, speechWithin } from './noisy-speech';
import { gainForSnr, haveAudio, loadAudio, mix, whiteNoise } from '../quality/signals.testutil';
import type { Denoiser } from './types';
import { SileroVad } from '../vad/silero';

const halved: Denoiser & { calls: number } = {
  id: 'test',
  calls: 0,
  async denoise(pcm) {
    this.calls++;
    return pcm.map((v) => v / 2);
  },
};

describe('speech within a chunk', () => {
  it('clips the recording’s spans to the chunk and moves them to its clock', () => {
    const speech = [
      { start: 1, end: 2 },
      { start: 2.5, end: 4 },
      { start: 5, end: 6 },
    ];
    expect(speechWithin(speech, { start: 1.5, end: 3 })).toEqual([
      { start: 0, end: 0.5 },
      { start: 1, end: 1.5 },
    ]);
    expect(speechWithin(speech, { start: 4.2, end: 4.8 })).toEqual([]);
  });
});

describe.skipIf(!haveAudio)('denoising only noisy speech', () => {
  it('reads a known SNR within a few dB, leaves a clean reading alone and denoises a noisy one', async () => {
    const clean = await loadAudio('asr/ljspeech_LJ001-0001.flac');
    const vad = new SileroVad();
    const speech = await vad.detect(clean).finally(() => vad.close());
    expect(speech.length).toBeGreaterThan(0);
    const noise = whiteNoise(clean.length, 3);
    const at10 = mix(clean, noise, gainForSnr(clean, noise, 10));
    expect(chunkSnrDb(at10, speech)).toBeGreaterThan(7);
    expect(chunkSnrDb(at10, speech)).toBeLessThan(14);
    expect(chunkSnrDb(clean, speech)).toBeGreaterThan(NOISY_BELOW_SNR_DB + 5);
    expect(chunkSnrDb(clean, [])).toBeNull();

    halved.calls = 0;
    const kept = await denoisedIfNoisy(halved, clean, speech);
    expect(kept.denoised).toBe(false);
    expect(kept.pcm).toBe(clean);
    const cleaned = await denoisedIfNoisy(halved, at10, speech);
    expect(cleaned.denoised).toBe(true);
    expect(cleaned.pcm[1000]).toBeCloseTo(at10[1000]! / 2, 6);
    expect(halved.calls).toBe(1);
  });
});
