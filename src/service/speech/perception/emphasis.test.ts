import { describe, expect, it } from 'vitest';
import { findEmphasis } from './emphasis';
import type { WordMeasure } from './words';

/** Ten plain words at 120 Hz, −25 dBFS, 0.2 s per syllable, 0.05 s apart. */
function plainLine(): WordMeasure[] {
  return Array.from({ length: 10 }, (_, i) => ({
    word: `w${i}`,
    start: i * 0.25,
    end: i * 0.25 + 0.2,
    syllables: 1,
    filler: false,
    pitch_hz: 120,
    end_pitch_hz: 120,
    energy_db: -25,
  }));
}
const baseline = { pitch_hz: 115, energy_db: -26 };

describe('emphasis', () => {
  it('finds nothing in an even line', () => {
    expect(findEmphasis(plainLine(), baseline)).toEqual([]);
  });

  it('finds a word raised by 3 st, with strength 3/6', () => {
    const words = plainLine();
    words[4]!.pitch_hz = 120 * 2 ** (3 / 12);
    expect(findEmphasis(words, baseline)).toEqual([{ word_index: 4, word: 'w4', start: 1, end: 1.2, strength: 0.5, source: 'estimate' }]);
  });

  it('finds a louder word (6 dB → 6/9) and a lengthened one, but not a lengthened word before a pause', () => {
    const words = plainLine();
    words[2]!.energy_db = -19;
    // Stretch w6 to 0.4 s (2× the median length); w7 starts right after.
    words[6]!.end = words[6]!.start + 0.4;
    for (const w of words.slice(7)) {
      w.start += 0.2;
      w.end += 0.2;
    }
    const found = findEmphasis(words, baseline);
    expect(found.map((e) => [e.word_index, e.strength])).toEqual([
      [2, 0.67],
      [6, 0.67],
    ]);
    // The last word is lengthened anyway: no emphasis from length there.
    const last = plainLine();
    last[9]!.end = last[9]!.start + 0.5;
    expect(findEmphasis(last, baseline)).toEqual([]);
  });

  it('keeps at most one word in five, the strongest', () => {
    const words = plainLine();
    words[1]!.pitch_hz = 120 * 2 ** (2.5 / 12);
    words[5]!.pitch_hz = 120 * 2 ** (5 / 12);
    words[8]!.pitch_hz = 120 * 2 ** (4 / 12);
    expect(findEmphasis(words, baseline).map((e) => e.word_index)).toEqual([5, 8]);
  });

  it('needs the word raised against the speaker’s baseline too', () => {
    const words = plainLine().map((w) => ({ ...w, energy_db: -40, pitch_hz: 100 }));
    words[3]!.energy_db = -35; // 5 dB over the line, but still under the speaker's usual −26 dBFS
    expect(findEmphasis(words, baseline)).toEqual([]);
    expect(findEmphasis(words, { pitch_hz: null, energy_db: -45 }).map((e) => e.word_index)).toEqual([3]);
  });

  it('skips fillers and untimed words', () => {
    const words = plainLine();
    words[4] = { ...words[4]!, word: 'uh', filler: true, syllables: 0, energy_db: -10 };
    words[5] = { ...words[5]!, end: words[5]!.start, energy_db: -10 };
    expect(findEmphasis(words, baseline)).toEqual([]);
  });
});
