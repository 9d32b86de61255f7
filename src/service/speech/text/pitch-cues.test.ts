import { describe, expect, it } from 'vitest';
import { concat, pulseTrain, whiteNoise } from '../../../../test/helpers/signals';
import { SAMPLE_RATE } from '../types';
import { pitchTrack, wordEndFalls } from './pitch-cues';

/** A voiced "word" whose F0 moves linearly from f0 to f1 Hz over `seconds`. */
function voiced(f0: number, f1: number, seconds: number): Float32Array {
  const periods: number[] = [];
  for (let t = 0; t < seconds - 0.06; ) {
    const p = 1 / (f0 + ((f1 - f0) * t) / seconds);
    periods.push(p);
    t += p;
  }
  return pulseTrain(periods, SAMPLE_RATE, { start: 0.005, tail: 0.05 }).pcm;
}
const silence = (s: number) => new Float32Array(Math.round(s * SAMPLE_RATE));
const at = (pieces: Float32Array[]) => {
  const spans: { start: number; end: number }[] = [];
  let t = 0;
  for (const p of pieces) {
    spans.push({ start: t, end: t + p.length / SAMPLE_RATE });
    t += p.length / SAMPLE_RATE;
  }
  return spans;
};

describe('wordEndFalls', () => {
  it('reads a falling end as positive semitones below the middle pitch, a rise as negative, noise as unknown', () => {
    const pieces = [
      voiced(150, 150, 0.5), // level at the speaker's middle
      silence(0.1),
      voiced(150, 100, 0.6), // falls to the bottom of the range
      silence(0.1),
      voiced(150, 220, 0.5), // rises
      silence(0.1),
      whiteNoise(0.4 * SAMPLE_RATE, 0.05, 3), // unvoiced
    ];
    const spans = at(pieces);
    const words = [spans[0]!, spans[2]!, spans[4]!, spans[6]!];
    const falls = wordEndFalls(pitchTrack(concat(...pieces), 0), words);
    expect(Math.abs(falls[0]!)).toBeLessThan(1);
    // Its last 40% runs 120 → 100 Hz: about 12·log2(150/108) ≈ 5.7 semitones below 150 Hz.
    expect(falls[1]!).toBeGreaterThan(4);
    expect(falls[1]!).toBeLessThan(8);
    expect(falls[2]!).toBeLessThan(-3);
    expect(falls[3]).toBeNull();
  });

  it('puts frames on the recording clock given the offset', () => {
    const pcm = concat(voiced(150, 150, 0.5), voiced(150, 100, 0.5));
    const track = pitchTrack(pcm, 100);
    const falls = wordEndFalls(track, [
      { start: 100, end: 100.5 },
      { start: 100.5, end: 101 },
    ]);
    expect(falls[1]!).toBeGreaterThan(falls[0]! + 3);
    expect(wordEndFalls(track, [{ start: 0, end: 0.5 }])).toEqual([null]);
  });
});
