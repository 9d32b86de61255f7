import { describe, expect, it } from 'vitest';
import { computeMfcc } from '../../dsp/mfcc';
import { SAMPLE_RATE } from '../types';
import { computeProfile } from './profile';
import { profileSimilarity } from './similarity';
import { joinSpans, profileOfSpans } from './span-profile';

/** A buzzy voice-like tone: harmonics of f0 with a formant-like tilt. */
function voice(f0: number, seconds: number, tilt: number): Float32Array {
  const out = new Float32Array(Math.round(seconds * SAMPLE_RATE));
  for (let i = 0; i < out.length; i++) {
    let v = 0;
    for (let h = 1; h <= 20; h++) v += Math.sin((2 * Math.PI * f0 * h * i) / SAMPLE_RATE) / Math.pow(h, tilt);
    out[i] = 0.1 * v;
  }
  return out;
}

describe('profileOfSpans', () => {
  it('joins close spans and sorts them', () => {
    expect(joinSpans([{ start: 2, end: 3 }, { start: 0, end: 1 }, { start: 1.2, end: 1.5 }, { start: 5, end: 5 }])).toEqual([
      { start: 0, end: 1.5 },
      { start: 2, end: 3 },
    ]);
  });

  it('over one span equals the profile of the same frames measured directly', () => {
    const pcm = voice(120, 2, 1);
    const direct = computeProfile(computeMfcc(pcm).mfcc, Int32Array.from({ length: computeMfcc(pcm).mfcc.frames }, (_, i) => i));
    expect(profileOfSpans(pcm, [{ start: 0, end: 2 }])).toEqual(direct);
  });

  it('tells the voice of its spans apart from another voice in the same recording', () => {
    const a = voice(110, 3, 0.8);
    const b = voice(220, 3, 2);
    const pcm = new Float32Array(a.length * 2);
    pcm.set(a);
    pcm.set(b, a.length);
    const first = profileOfSpans(pcm, [{ start: 0.2, end: 1.4 }])!;
    const firstAgain = profileOfSpans(pcm, [{ start: 1.5, end: 2.8 }])!;
    const second = profileOfSpans(pcm, [{ start: 3.2, end: 5.8 }])!;
    expect(profileSimilarity(first, firstAgain)).toBeGreaterThan(profileSimilarity(first, second));
  });

  it('is null for spans without a whole frame', () => {
    expect(profileOfSpans(new Float32Array(16000), [{ start: 0.1, end: 0.11 }])).toBeNull();
  });
});
