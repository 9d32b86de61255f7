import { describe, expect, it } from 'vitest';
import { concat, rms, tone, whiteNoise } from '../../../../test/helpers/signals';
import { harmonicityTrack, meanHarmonicity, SILENT_DB } from './harmonicity';

/** A harmonic complex (exactly periodic): harmonics of f0 up to 4 kHz with 1/k amplitudes. */
function harmonic(f0: number, seconds: number, rate: number): Float32Array {
  const n = Math.round(seconds * rate);
  const x = new Float32Array(n);
  for (let k = 1; k * f0 < 4000; k++) for (let i = 0; i < n; i++) x[i] = x[i]! + (0.3 / k) * Math.sin((2 * Math.PI * k * f0 * i) / rate + 0.7 * k * k);
  return x;
}

function withNoise(x: Float32Array, snrDb: number, seed: number): Float32Array {
  const noise = whiteNoise(x.length, rms(x) / 10 ** (snrDb / 20), seed);
  return x.map((v, i) => v + noise[i]!);
}

describe('harmonicityTrack (cc)', () => {
  // For a periodic signal plus white noise the correlation at one period is P/(P + N), so HNR = SNR.
  it.each([
    [0, 16000],
    [10, 16000],
    [20, 16000],
    [10, 44100],
    [20, 8000],
  ])('reads noise mixed at %s dB below a harmonic voice (%s Hz) within 1 dB', (snr, rate) => {
    const hnr = meanHarmonicity(harmonicityTrack(withNoise(harmonic(150, 1.5, rate), snr, 11), rate))!;
    expect(Math.abs(hnr - snr)).toBeLessThan(1);
  });

  it('reads a clean periodic signal as far above any real voice', () => {
    expect(meanHarmonicity(harmonicityTrack(harmonic(120, 1, 16000), 16000))).toBeGreaterThan(50);
    expect(meanHarmonicity(harmonicityTrack(tone(200, 1, 16000), 16000))).toBeGreaterThan(50);
  });

  it('reads white noise as mostly noise', () => {
    expect(meanHarmonicity(harmonicityTrack(whiteNoise(16000, 0.1, 3), 16000))).toBeLessThan(0);
  });

  it('marks silence and quiet frames silent; the mean of nothing is null', () => {
    const silent = harmonicityTrack(new Float32Array(16000), 16000);
    expect(silent.db.every((v) => v === SILENT_DB)).toBe(true);
    expect(meanHarmonicity(silent)).toBeNull();
    // A tone, then the same tone 30 dB down: below 0.1 of the global peak, so left out of the mean.
    const track = harmonicityTrack(concat(tone(200, 0.5, 16000), tone(200, 0.5, 16000, 0.5 * 0.0316)), 16000);
    const at = (t: number) => track.db[Math.round((t - track.start) / track.timeStep)]!;
    expect(at(0.25)).toBeGreaterThan(50);
    expect(at(0.75)).toBe(SILENT_DB);
  });

  it('limits the mean to the frames it is asked about', () => {
    const pcm = concat(withNoise(harmonic(150, 1, 16000), 20, 4), withNoise(harmonic(150, 1, 16000), 0, 5));
    const track = harmonicityTrack(pcm, 16000);
    expect(meanHarmonicity(track, (t) => t < 1)!).toBeGreaterThan(18);
    expect(meanHarmonicity(track, (t) => t > 1)!).toBeLessThan(2);
  });
});
