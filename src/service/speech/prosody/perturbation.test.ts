import { describe, expect, it } from 'vitest';
import { pulseTrain, random } from '../../../../test/helpers/signals';
import { hannWindowedRms, jitterLocal, meanPeriod, shimmerLocal } from './perturbation';
import { pitchTrack } from './pitch';
import { periodicPulses } from './pulses';

/** Pulse times from a first time and successive periods. */
function times(periods: number[], start = 0.1): number[] {
  const t = [start];
  for (const p of periods) t.push(t[t.length - 1]! + p);
  return t;
}

/** Jitter (local) computed straight from its definition over periods that all count. */
function jitterOf(periods: number[]): number {
  let diff = 0;
  for (let i = 1; i < periods.length; i++) diff += Math.abs(periods[i]! - periods[i - 1]!);
  return diff / (periods.length - 1) / (periods.reduce((a, b) => a + b, 0) / periods.length);
}

/** Periods of 1/f0 with a random relative perturbation of ±spread (uniform). */
function perturbedPeriods(count: number, f0: number, spread: number, seed: number): number[] {
  const next = random(seed);
  return Array.from({ length: count }, () => (1 + spread * (2 * next() - 1)) / f0);
}

describe('jitterLocal on pulse times', () => {
  it('is zero for a perfectly periodic train', () => {
    expect(jitterLocal(times(new Array(50).fill(0.008)))).toBeCloseTo(0, 12);
  });

  it('equals mean |Δperiod| / mean period for alternating periods', () => {
    // Periods alternate 9.9 and 10.1 ms: every |Δp| is 0.2 ms, the mean period 10 ms → exactly 2%.
    const periods = Array.from({ length: 40 }, (_, i) => (i % 2 ? 0.0101 : 0.0099));
    expect(jitterLocal(times(periods))).toBeCloseTo(0.02, 9);
  });

  it('matches the definition on random perturbations', () => {
    const periods = perturbedPeriods(200, 120, 0.03, 7);
    expect(jitterLocal(times(periods))).toBeCloseTo(jitterOf(periods), 10);
  });

  it('skips intervals that are no periods: pauses longer than 20 ms and jumps over 1.3×', () => {
    const steady = new Array(20).fill(0.01);
    // A 50 ms pause between two steady runs adds no jitter; nor does a lone 13.5 ms interval.
    expect(jitterLocal(times([...steady, 0.05, ...steady]))).toBeCloseTo(0, 12);
    expect(jitterLocal(times([...steady, 0.0135, ...steady]))).toBeCloseTo(0, 12);
    // A 12 ms interval is a period (factor 1.2): it adds two differences of 2 ms.
    const j = jitterLocal(times([...steady, 0.012, ...steady]))!;
    expect(j).toBeCloseTo(0.004 / 40 / (0.412 / 41), 10);
  });

  it('needs two periods (three pulses)', () => {
    expect(jitterLocal([0.1, 0.11])).toBeNull();
    expect(jitterLocal([])).toBeNull();
    expect(jitterLocal([0.1, 0.11, 0.12])).toBeCloseTo(0, 12);
    expect(jitterLocal([0.1, 0.11, 0.2])).toBeNull(); // the second interval is a pause, not a period
  });

  it('takes the mean period over real periods only', () => {
    expect(meanPeriod(times([0.01, 0.01, 0.05, 0.01, 0.01]))).toBeCloseTo(0.01, 12);
    expect(meanPeriod([0.1])).toBeNull();
  });
});

describe('shimmerLocal on constructed amplitudes', () => {
  it('is zero for equal pulses and 2δ for amplitudes alternating 1 ± δ', () => {
    const periods = new Array(60).fill(0.008);
    const steady = pulseTrain(periods, 16000);
    expect(shimmerLocal(steady.pulses, steady.pcm, 16000)).toBeLessThan(1e-3);
    // Gains alternate 0.9 and 1.1: |Δa| = 0.2 for every pair, mean amplitude 1 → shimmer 0.2.
    const gains = steady.pulses.map((_, i) => (i % 2 ? 1.1 : 0.9));
    const alternating = pulseTrain(periods, 16000, { gains });
    expect(shimmerLocal(alternating.pulses, alternating.pcm, 16000)).toBeCloseTo(0.2, 3);
  });

  it('reads each pulse’s amplitude as the Hann-windowed RMS around it', () => {
    const pcm = new Float32Array(1000).fill(0.5);
    expect(hannWindowedRms(pcm, 16000, 0.03, 0.002, 0.002)).toBeCloseTo(0.5, 12);
    expect(hannWindowedRms(pcm, 16000, 0.03, 0.00001, 0.00001)).toBeNull(); // fewer than 3 samples
  });

  it('is null with fewer than three pulses', () => {
    expect(shimmerLocal([0.1, 0.11], new Float32Array(4000), 16000)).toBeNull();
  });
});

describe('jitter and shimmer measured from the signal (pulses found by cross-correlation)', () => {
  it.each([
    [16000, 0.01],
    [16000, 0.03],
    [44100, 0.02],
    [8000, 0.02],
  ])('at %s Hz with ±%s period perturbation, within 2%% of the true jitter', (rate, spread) => {
    const periods = perturbedPeriods(150, 125, spread, 3);
    const { pcm, pulses } = pulseTrain(periods, rate);
    const found = periodicPulses(pcm, rate, pitchTrack(pcm, rate));
    // Every constructed pulse is found once (cross-correlation locks onto the same phase of each period).
    expect(found.length).toBe(pulses.length);
    const truth = jitterLocal(pulses)!;
    expect(truth).toBeCloseTo(jitterOf(periods), 6);
    expect(Math.abs(jitterLocal(found)! - truth) / truth).toBeLessThan(0.02);
  });

  it('finds the shimmer of amplitudes alternating ±5% within 2%', () => {
    const periods = new Array(120).fill(0.0075);
    const gains = Array.from({ length: 121 }, (_, i) => (i % 2 ? 1.05 : 0.95));
    const { pcm, pulses } = pulseTrain(periods, 16000, { gains });
    const found = periodicPulses(pcm, 16000, pitchTrack(pcm, 16000));
    const truth = shimmerLocal(pulses, pcm, 16000)!;
    expect(truth).toBeCloseTo(0.1, 3);
    expect(Math.abs(shimmerLocal(found, pcm, 16000)! - truth) / truth).toBeLessThan(0.02);
  });
});
