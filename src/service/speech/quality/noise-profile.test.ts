import { describe, expect, it } from 'vitest';
import { powerDb } from './frames';
import { localNoise, noiseProfile } from './noise-profile';
import { RATE, whiteNoise } from './signals.testutil';

/** "Speech" (a loud 300 Hz tone) in `spans`, white noise of power `noiseDb` everywhere. */
function scene(
  seconds: number,
  spans: { start: number; end: number }[],
  noiseDb: number,
  seed = 1,
): Float32Array {
  const noise = whiteNoise(seconds * RATE, seed);
  const g = 10 ** (noiseDb / 20);
  const pcm = noise.map((v) => v * g);
  for (const s of spans)
    for (let i = Math.round(s.start * RATE); i < s.end * RATE; i++)
      pcm[i]! += 0.3 * Math.sin((2 * Math.PI * 300 * i) / RATE);
  return pcm;
}

describe('noiseProfile', () => {
  it('measures the floor between speech to within 0.5 dB, ignoring the speech', () => {
    const spans = [
      { start: 1, end: 3 },
      { start: 4, end: 7 },
    ];
    for (const level of [-70, -50, -30]) {
      const p = noiseProfile(scene(8, spans, level), RATE, spans);
      expect(p.method).toBe('non_speech');
      // DC and the bins below 15.6 Hz are excluded: white noise loses 1/256 of its power, −0.02 dB.
      expect(p.noise_db!).toBeGreaterThan(level - 0.5);
      expect(p.noise_db!).toBeLessThan(level + 0.5);
      expect(p.nonSpeechSeconds).toBeCloseTo(8 - 5 - 4 * 0.05, 1);
    }
  });

  it('rejects transients (a click in a pause) from the floor', () => {
    const spans = [{ start: 2, end: 4 }];
    const pcm = scene(6, spans, -60);
    for (let i = 0; i < 200; i++) pcm[RATE * 5 + i] = 0.5 * Math.sin(i);
    expect(noiseProfile(pcm, RATE, spans).noise_db!).toBeLessThan(-59.5);
  });

  it('judges a line by the pauses near it when the noise changes over the recording', () => {
    const spans = [
      { start: 1, end: 3 },
      { start: 40, end: 42 },
    ];
    const pcm = scene(45, spans, -70);
    const loud = whiteNoise(20 * RATE, 9);
    for (let i = 0; i < 15 * RATE; i++) pcm[30 * RATE + i]! += loud[i]! * 10 ** (-40 / 20);
    const profile = noiseProfile(pcm, RATE, spans);
    expect(localNoise(profile, spans[0]!)!.level_db).toBeLessThan(-69);
    expect(localNoise(profile, spans[1]!)!.level_db).toBeGreaterThan(-41);
  });

  it('falls back to the quietest frames when there is no pause, and says so', () => {
    const pcm = scene(5, [{ start: 0, end: 5 }], -60);
    // Speech everywhere: the quietest 10% of frames still hold the tone, so the floor reads high.
    const p = noiseProfile(pcm, RATE, [{ start: 0, end: 5 }]);
    expect(p.method).toBe('quietest_frames');
    expect(p.noise_db).not.toBeNull();
    expect(noiseProfile(new Float32Array(0), RATE, []).method).toBe('none');
  });

  it('keeps digital silence finite', () => {
    const p = noiseProfile(new Float32Array(RATE * 3), RATE, [{ start: 1, end: 2 }]);
    expect(p.noise_db).toBe(powerDb(0));
  });
});
