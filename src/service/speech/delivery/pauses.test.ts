import { describe, expect, it } from 'vitest';
import { frameLevels } from '../../dsp/levels';
import { analysePauses, type PauseInput, type PitchFrames, type TimedWord } from './pauses';

const SR = 16000;

/** A constructed line: tone where `sound` says (with its F0; 0 = noise), silence elsewhere. */
function line(duration: number, sound: Array<{ start: number; end: number; f0: number }>): { pcm: Float32Array; pitch: PitchFrames } {
  const pcm = new Float32Array(Math.round(duration * SR));
  let seed = 7;
  const noise = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648 - 0.5) * 0.2;
  for (const s of sound) {
    for (let i = Math.round(s.start * SR); i < Math.round(s.end * SR); i++) {
      pcm[i] = s.f0 > 0 ? 0.3 * Math.sin((2 * Math.PI * s.f0 * i) / SR) : noise();
    }
  }
  const f0 = new Float32Array(Math.floor(duration / 0.01));
  for (let k = 0; k < f0.length; k++) {
    const t = k * 0.01;
    f0[k] = sound.find((s) => s.f0 > 0 && t >= s.start + 0.01 && t < s.end - 0.01)?.f0 ?? 0;
  }
  return { pcm, pitch: { timeStep: 0.01, start: 0, f0 } };
}

function input(duration: number, sound: Array<{ start: number; end: number; f0: number }>, words: TimedWord[], sentenceEnds?: Set<number>): PauseInput {
  const { pcm, pitch } = line(duration, sound);
  return { line: { start: 0, end: duration }, words, levels: frameLevels(pcm, SR), pitch, silenceDb: -50, sentenceEnds };
}

describe('analysePauses', () => {
  it('finds a silent pause between words and names the word before it', () => {
    const r = analysePauses(
      input(2, [{ start: 0.2, end: 0.8, f0: 150 }, { start: 1.2, end: 1.8, f0: 150 }], [
        { word: 'hello', start: 0.2, end: 0.8 },
        { word: 'there', start: 1.2, end: 1.8 },
      ]),
    );
    expect(r.pauses).toHaveLength(1);
    expect(r.pauses[0]).toMatchObject({ after_word: 'hello', filled: false, sentence_end: false });
    expect(r.pauses[0]!.duration).toBeCloseTo(0.4, 1);
    expect(r.speech_start).toBeCloseTo(0.2, 1);
    expect(r.speech_end).toBeCloseTo(1.8, 1);
    expect(r.longest_pause).toBeCloseTo(0.4, 1);
    expect(r.hesitations).toBe(0);
  });

  it('ignores gaps shorter than 0.25 s', () => {
    const r = analysePauses(
      input(2, [{ start: 0.2, end: 0.8, f0: 150 }, { start: 0.95, end: 1.6, f0: 150 }], [
        { word: 'a', start: 0.2, end: 0.8 },
        { word: 'b', start: 0.95, end: 1.6 },
      ]),
    );
    expect(r.pauses).toHaveLength(0);
    expect(r.longest_pause).toBe(0);
  });

  it('calls a word gap filled by a steady voiced hum a filled pause, and a noisy one a breath pause', () => {
    const words = [
      { word: 'so', start: 0.2, end: 0.6 },
      { word: 'then', start: 1.3, end: 1.8 },
    ];
    const hum = analysePauses(input(2, [{ start: 0.2, end: 0.6, f0: 180 }, { start: 0.6, end: 1.3, f0: 110 }, { start: 1.3, end: 1.8, f0: 180 }], words));
    expect(hum.pauses).toHaveLength(1);
    expect(hum.pauses[0]!.filled).toBe(true);
    expect(hum.hesitations).toBe(1);
    const breath = analysePauses(input(2, [{ start: 0.2, end: 0.6, f0: 180 }, { start: 0.6, end: 1.3, f0: 0 }, { start: 1.3, end: 1.8, f0: 180 }], words));
    expect(breath.pauses).toHaveLength(1);
    expect(breath.pauses[0]!.filled).toBe(false);
  });

  it('treats a recognized filler word as a filled pause', () => {
    const r = analysePauses(
      input(2, [{ start: 0.2, end: 1.8, f0: 160 }], [
        { word: 'well', start: 0.2, end: 0.6 },
        { word: 'um', start: 0.6, end: 1.0 },
        { word: 'yes', start: 1.0, end: 1.8 },
      ]),
    );
    expect(r.pauses).toHaveLength(1);
    expect(r.pauses[0]).toMatchObject({ filled: true, after_word: 'well', start: 0.6, end: 1 });
  });

  it('finds silence the recognizer absorbed into a word, and marks pauses after sentence ends', () => {
    const r = analysePauses(
      input(3, [{ start: 0.1, end: 0.7, f0: 150 }, { start: 1.3, end: 2.0, f0: 150 }, { start: 2.6, end: 2.9, f0: 150 }], [
        { word: 'done.', start: 0.1, end: 1.2 },
        { word: 'next', start: 1.3, end: 2.0 },
        { word: 'one', start: 2.6, end: 2.9 },
      ], new Set([0])),
    );
    expect(r.pauses).toHaveLength(2);
    expect(r.pauses[0]).toMatchObject({ after_word: 'done.', sentence_end: true });
    expect(r.pauses[0]!.duration).toBeCloseTo(0.6, 1);
    expect(r.pauses[1]).toMatchObject({ after_word: 'next', sentence_end: false });
    // The sentence-end pause is not a hesitation; the 0.6 s mid-sentence one is.
    expect(r.hesitations).toBe(1);
  });

  it('does not count leading and trailing silence of the line', () => {
    const r = analysePauses(input(3, [{ start: 1.0, end: 2.0, f0: 150 }], [{ word: 'alone', start: 0.9, end: 2.1 }]));
    expect(r.pauses).toHaveLength(0);
    expect(r.speech_start).toBeCloseTo(1.0, 1);
    expect(r.speech_end).toBeCloseTo(2.0, 1);
  });
});
