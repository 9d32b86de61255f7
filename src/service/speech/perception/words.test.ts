import { describe, expect, it } from 'vitest';
import type { LevelTrack } from '../../dsp/levels';
import type { PitchFrames } from '../delivery/pauses';
import { measureWords } from './words';

const counter = { count: (w: string) => (w === 'rainbow' ? 2 : 1) };

describe('word measures', () => {
  it('pitch, the pitch a word ends on (skipping its unvoiced end), level and syllables', () => {
    // 10 ms frames from 0: 0–0.5 s at 200 Hz, 0.5–0.7 s at 150 Hz, unvoiced 0.7–0.8 s.
    const f0 = new Float32Array(100);
    for (let k = 0; k < 100; k++) f0[k] = k < 50 ? 200 : k < 70 ? 150 : 0;
    const track: PitchFrames = { timeStep: 0.01, start: 0, f0 };
    const db = new Float32Array(100).fill(-30);
    for (let k = 0; k < 50; k++) db[k] = -20;
    const levels: LevelTrack = { hop: 0.01, frame: 0.01, db };
    const [rainbow, uh, gone] = measureWords(
      [
        { word: 'rainbow', start: 0.2, end: 0.8 },
        { word: 'uh', start: 0.8, end: 0.9 },
        { word: 'gone', start: 0.9, end: 0.9 },
      ],
      levels,
      track,
      counter,
    );
    expect(rainbow).toMatchObject({ syllables: 2, filler: false, pitch_hz: 200, end_pitch_hz: 150 });
    // Frames 20–49 at −20 dB, 50–79 at −30 dB: power mean.
    expect(rainbow!.energy_db).toBeCloseTo(10 * Math.log10((0.01 + 0.001) / 2), 1);
    expect(uh).toMatchObject({ syllables: 0, filler: true, pitch_hz: null, end_pitch_hz: null });
    expect(gone).toMatchObject({ pitch_hz: null, energy_db: null });
  });

  it('without a pitch track there is no pitch', () => {
    const levels: LevelTrack = { hop: 0.01, frame: 0.01, db: new Float32Array(50).fill(-25) };
    expect(measureWords([{ word: 'so', start: 0, end: 0.3 }], levels, null, counter)[0]).toMatchObject({ pitch_hz: null, end_pitch_hz: null, energy_db: -25 });
  });
});
