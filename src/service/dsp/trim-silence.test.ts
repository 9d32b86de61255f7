import { describe, expect, it } from 'vitest';
import { leadingQuiet, loudestFramePower, soundingSpan, trimSilence } from './trim-silence';

const RATE = 16000;

describe('trimSilence', () => {
  it('cuts leading and trailing silence and low noise, keeping a short pad', () => {
    const x = new Float32Array(RATE * 2);
    for (let i = 0; i < x.length; i++) x[i] = 1e-4 * Math.sin(i * 1.3); // −80 dB hiss
    for (let i = 0.5 * RATE; i < 1.25 * RATE; i++) x[i] = 0.5 * Math.sin((2 * Math.PI * 200 * i) / RATE);
    const span = soundingSpan(x, RATE);
    expect(span.start / RATE).toBeCloseTo(0.49, 2);
    expect(span.end / RATE).toBeCloseTo(1.26, 2);
    expect(trimSilence(x, RATE).length).toBe(span.end - span.start);
  });

  it('keeps quiet speech that is still within the threshold of the loudest part', () => {
    const x = new Float32Array(RATE);
    for (let i = 0.1 * RATE; i < 0.2 * RATE; i++) x[i] = 0.01 * Math.sin(i); // −34 dB below the vowel
    for (let i = 0.3 * RATE; i < 0.6 * RATE; i++) x[i] = 0.5 * Math.sin(i);
    expect(soundingSpan(x, RATE).start / RATE).toBeCloseTo(0.09, 2);
  });

  it('gives an empty span for silence', () => {
    expect(soundingSpan(new Float32Array(100), RATE)).toEqual({ start: 0, end: 0 });
  });
});

describe('leadingQuiet', () => {
  it('measures the quiet before the next sound, per frame of all channels', () => {
    const stereo = new Float32Array(2 * RATE);
    for (let i = 0.3 * RATE; i < RATE; i++) {
      stereo[i * 2] = 0.5 * Math.sin(i);
      stereo[i * 2 + 1] = 0.5 * Math.sin(i);
    }
    const floor = loudestFramePower(stereo, 2, RATE) * 1e-4;
    expect(loudestFramePower(stereo, 2, RATE)).toBeCloseTo(0.125, 2);
    expect(leadingQuiet(stereo, 2, RATE, floor)).toBeCloseTo(0.3, 2);
    expect(leadingQuiet(new Float32Array(2 * RATE), 2, RATE, floor)).toBeCloseTo(1, 5);
  });
});
