import { describe, expect, it } from 'vitest';
import { concat, glide, pulseTrain, random, tone, whiteNoise } from '../../../../test/helpers/signals';
import { measureProsody } from './measure';
import { jitterLocal } from './perturbation';
import { quantile, standardDeviation } from './stats';

const dbOfSine = (amp: number) => 20 * Math.log10(amp / Math.SQRT2);

describe('measureProsody on a steady tone', () => {
  const m = measureProsody(tone(200, 1, 16000, 0.5), 16000, { start: 0, end: 1 });

  it('reads its level and steadiness', () => {
    expect(m.energy_db!).toBeCloseTo(dbOfSine(0.5), 2); // −9.03 dBFS
    expect(m.energy_range_db!).toBeLessThan(0.05);
  });

  it('reads its pitch, flat', () => {
    expect(m.pitch_hz!).toBeCloseTo(200, 1);
    expect(m.pitch_range_st!).toBeLessThan(0.01);
    expect(m.pitch_variability_st!).toBeLessThan(0.01);
    expect(m.voiced_ratio).toBe(1);
  });

  it('reads no perturbation and a high harmonicity', () => {
    expect(m.pitch_perturbation!).toBeLessThan(1e-3);
    expect(m.amplitude_perturbation!).toBeLessThan(1e-3);
    expect(m.hnr_db!).toBeGreaterThan(50);
  });

  it('returns the pitch track on the pcm’s clock', () => {
    expect(m.track.timeStep).toBeCloseTo(0.01, 12);
    expect(m.track.start).toBeCloseTo(0.02, 6);
    expect(m.track.f0.length).toBe(97);
  });
});

describe('measureProsody pitch spread', () => {
  it('reads the 5th–95th percentile span and the deviation of an octave glide in semitones', () => {
    const m = measureProsody(glide(100, 200, 1, 16000), 16000, { start: 0, end: 1 });
    // The truth: the glide's own F0 at every frame centre, 12·log2(F0/100) = 12·t semitones.
    const times = Array.from(m.track.f0, (_, i) => m.track.start + i * m.track.timeStep);
    const st = times.map((t) => 12 * t);
    expect(m.voiced_ratio).toBe(1);
    expect(m.pitch_range_st!).toBeCloseTo(quantile(st, 0.95) - quantile(st, 0.05), 1);
    expect(m.pitch_variability_st!).toBeCloseTo(standardDeviation(st), 1);
    expect(m.pitch_hz!).toBeCloseTo(100 * Math.SQRT2, 0);
  });
});

describe('measureProsody on silence and nothing', () => {
  it('gives nulls and a zero voiced ratio for digital silence', () => {
    const m = measureProsody(new Float32Array(16000), 16000, { start: 0, end: 1 });
    expect(m).toMatchObject({
      energy_db: null,
      energy_range_db: null,
      voiced_ratio: 0,
      pitch_hz: null,
      pitch_range_st: null,
      pitch_variability_st: null,
      pitch_perturbation: null,
      amplitude_perturbation: null,
      hnr_db: null,
    });
    expect(Array.from(m.track.f0).every((f) => f === 0)).toBe(true);
  });

  it('gives nulls for an empty or reversed span, and for a line shorter than a pitch window', () => {
    const pcm = tone(200, 1, 16000);
    for (const span of [
      { start: 0.5, end: 0.5 },
      { start: 0.6, end: 0.4 },
      { start: 2, end: 3 },
    ]) {
      const m = measureProsody(pcm, 16000, span);
      expect(m.pitch_hz).toBeNull();
      expect(m.voiced_ratio).toBe(0);
      expect(m.track.f0.length).toBe(0);
    }
    const short = measureProsody(pcm, 16000, { start: 0.5, end: 0.53 });
    expect(short.track.f0.length).toBe(0);
    expect(short.pitch_hz).toBeNull();
    expect(short.energy_db!).toBeCloseTo(dbOfSine(0.5), 1);
  });

  it('refuses a bad sample rate or span', () => {
    expect(() => measureProsody(new Float32Array(10), 0, { start: 0, end: 1 })).toThrow(/sample rate/);
    expect(() => measureProsody(new Float32Array(10), 16000, { start: NaN, end: 1 })).toThrow(/finite/);
  });
});

describe('measureProsody on a line inside a longer recording', () => {
  // 0–1 s: 300 Hz tone; 1–2 s: the line, a 150 Hz tone at −20 dBFS-ish; 2–3 s: noise.
  const pcm = concat(tone(300, 1, 16000, 0.8), tone(150, 1, 16000, 0.1), whiteNoise(16000, 0.3, 9));
  const m = measureProsody(pcm, 16000, { start: 1, end: 2 });

  it('measures only the line', () => {
    expect(m.pitch_hz!).toBeCloseTo(150, 1);
    expect(m.energy_db!).toBeCloseTo(dbOfSine(0.1), 1);
    expect(m.voiced_ratio).toBe(1);
  });

  it('gives the same figures as the line extracted on its own, with the track on the recording’s clock', () => {
    const alone = measureProsody(pcm.slice(16000, 32000), 16000, { start: 0, end: 1 });
    expect({ ...m, track: null }).toEqual({ ...alone, track: null });
    expect(m.track.start).toBeCloseTo(alone.track.start + 1, 9);
    expect(Array.from(m.track.f0)).toEqual(Array.from(alone.track.f0));
  });
});

describe('measureProsody with speech stretches', () => {
  // 0–0.5 s loud tone, 0.5–1 s the same tone 20 dB down, 1–1.5 s noise between words.
  const pcm = concat(tone(200, 0.5, 16000, 0.5), tone(200, 0.5, 16000, 0.05), whiteNoise(8000, 0.2, 2));
  const line = { start: 0, end: 1.5 };

  it('limits the level to the speech when stretches are given', () => {
    const loud = measureProsody(pcm, 16000, line, [{ start: 0, end: 0.5 }]);
    expect(loud.energy_db!).toBeCloseTo(dbOfSine(0.5), 1);
    const both = measureProsody(pcm, 16000, line, [
      { start: 0.5, end: 1 },
      { start: 0, end: 0.5 }, // unordered and touching: merged
    ]);
    expect(both.energy_db!).toBeCloseTo(10 * Math.log10((0.5 ** 2 / 2 + 0.05 ** 2 / 2) / 2), 1);
    expect(both.energy_range_db!).toBeGreaterThan(19);
    const whole = measureProsody(pcm, 16000, line);
    // Without stretches the noise counts too.
    expect(whole.energy_db!).toBeCloseTo(10 * Math.log10((0.5 ** 2 / 2 + 0.05 ** 2 / 2 + 0.2 ** 2) / 3), 1);
  });

  it('counts voicing over speech frames only', () => {
    const m = measureProsody(pcm, 16000, line, [{ start: 0.1, end: 0.9 }]);
    expect(m.voiced_ratio).toBe(1);
    expect(measureProsody(pcm, 16000, line).voiced_ratio).toBeLessThan(0.75);
  });

  it('reads nothing when no speech is given', () => {
    const m = measureProsody(pcm, 16000, line, []);
    expect(m.energy_db).toBeNull();
    expect(m.voiced_ratio).toBe(0);
    expect(m.pitch_hz).toBeNull();
    expect(m.pitch_perturbation).toBeNull();
    expect(m.hnr_db).toBeNull();
  });

  it('takes stretches on the recording’s clock', () => {
    const recording = concat(new Float32Array(16000), pcm);
    const m = measureProsody(recording, 16000, { start: 1, end: 2.5 }, [{ start: 1, end: 1.5 }]);
    expect(m.energy_db!).toBeCloseTo(dbOfSine(0.5), 1);
  });
});

describe('measureProsody at other sample rates and on a perturbed voice', () => {
  it.each([8000, 22050, 44100, 48000])('reads a 180 Hz tone at %s Hz', (rate) => {
    const m = measureProsody(tone(180, 0.8, rate, 0.25), rate, { start: 0, end: 0.8 });
    expect(m.pitch_hz!).toBeCloseTo(180, 1);
    expect(m.energy_db!).toBeCloseTo(dbOfSine(0.25), 2);
    expect(m.hnr_db!).toBeGreaterThan(40);
  });

  it('reads the jitter of a pulse train with ±2% random periods', () => {
    const next = random(21);
    const periods = Array.from({ length: 120 }, () => (1 + 0.02 * (2 * next() - 1)) / 110);
    const { pcm, pulses } = pulseTrain(periods, 16000);
    const m = measureProsody(pcm, 16000, { start: 0, end: pcm.length / 16000 });
    const truth = jitterLocal(pulses)!;
    expect(Math.abs(m.pitch_perturbation! - truth) / truth).toBeLessThan(0.02);
    expect(m.pitch_hz!).toBeCloseTo(110, -1);
  });
});
