import { describe, expect, it } from 'vitest';
import { genderFromPitch, speakerPitch } from './pitch-gender';

/** A voiced-like tone: a fundamental and its first harmonics, falling off. */
function tone(f0: number, seconds: number, rate = 16000): Float32Array {
  const out = new Float32Array(Math.round(seconds * rate));
  for (let i = 0; i < out.length; i++) for (let h = 1; h <= 5; h++) out[i]! += (0.3 / h) * Math.sin((2 * Math.PI * f0 * h * i) / rate);
  return out;
}

describe('a speaker’s gender of voice from pitch', () => {
  it('reads below 150 Hz as male, above 170 Hz as female, and says nothing in between or on too little speech', () => {
    expect(genderFromPitch(120, 10)).toBe('male');
    expect(genderFromPitch(149.9, 10)).toBe('male');
    expect(genderFromPitch(150, 10)).toBeNull();
    expect(genderFromPitch(170, 10)).toBeNull();
    expect(genderFromPitch(210, 10)).toBe('female');
    expect(genderFromPitch(210, 1.9)).toBeNull();
    expect(genderFromPitch(null, 0)).toBeNull();
  });

  it("takes the median over every voiced frame of the speaker's stretches", () => {
    const low = speakerPitch([tone(110, 2), tone(115, 2)], 16000);
    expect(low.gender).toBe('male');
    expect(low.median_f0).toBeGreaterThan(108);
    expect(low.median_f0).toBeLessThan(117);
    expect(low.voiced_seconds).toBeGreaterThan(3.5);
    expect(speakerPitch([tone(220, 3, 48000)], 48000)).toMatchObject({ gender: 'female' });
    expect(speakerPitch([tone(160, 3)], 16000)).toMatchObject({ gender: null });
    expect(speakerPitch([tone(110, 1)], 16000)).toMatchObject({ gender: null });
    expect(speakerPitch([new Float32Array(16000)], 16000)).toEqual({ median_f0: null, voiced_seconds: 0, gender: null });
    expect(speakerPitch([], 16000)).toEqual({ median_f0: null, voiced_seconds: 0, gender: null });
  });
});
