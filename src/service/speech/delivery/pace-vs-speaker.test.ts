import { describe, expect, it } from 'vitest';
import { largerChange, paceAgainstSpeaker, type PaceCounts } from './pace-vs-speaker';

/** A line of `seconds` at `rate` syllables/s by both counts unless told otherwise. */
const line = (rate: number, o: Partial<PaceCounts> = {}, seconds = 5): PaceCounts => ({
  speaker: 'S1',
  syllables: rate * seconds,
  nuclei: rate * seconds * 0.8,
  articulation_seconds: seconds,
  ...o,
});

describe('pace against the speaker', () => {
  it('reads a line against the other lines only, so a rushed line does not raise its own yardstick', () => {
    const lines = [line(4), line(4), line(4), line(5.2)];
    // All four lines pooled (the line included) give 4.3 syllables/s: 5.2 / 4.3 = 1.21. Against the others: 1.3
    // (and each usual line against the other three, the rushed one among them: 4 / 4.4).
    expect(paceAgainstSpeaker(lines)).toEqual([0.909, 0.909, 0.909, 1.3]);
  });

  it('pools the other lines by their syllables over their time, so a short odd line moves the usual pace by its share only', () => {
    const lines = [line(4), line(4.2), line(3.9), line(9, {}, 1), line(5.2)];
    expect(paceAgainstSpeaker(lines)[4]).toBeCloseTo(5.2 / ((20 + 21 + 19.5 + 9) / 16), 3);
  });

  it('reads the count that moved further when both say faster: the recognizer lost words of a sped line, the signal did not', () => {
    // Sped 1.3×: the nuclei follow (4 × 1.3 × 0.8 per second); the recognized words hold only 1.1× the usual.
    const rushed = line(5.2, { syllables: 4.4 * 5 });
    // Against the other three lines: the words read 4.4 / 4 = 1.1, the nuclei 1.3.
    const dictionary = 1.1;
    const nuclei = 1.3;
    expect(paceAgainstSpeaker([line(4), line(4), line(4), rushed])[3]).toBeCloseTo(Math.max(dictionary, nuclei), 3);
    // And the other way round: the signal merged syllables, the words kept them.
    expect(paceAgainstSpeaker([line(4), line(4), line(4), line(5.2, { nuclei: 4.4 * 5 * 0.8 })])[3]).toBeCloseTo(1.3, 3);
  });

  it('reads the slower count when both say slower, and the geometric mean when they disagree', () => {
    expect(paceAgainstSpeaker([line(4), line(4), line(4), line(3.2, { syllables: 3.6 * 5 })])[3]).toBeCloseTo(0.8, 3);
    expect(paceAgainstSpeaker([line(4), line(4), line(4), line(4.4, { nuclei: 3.6 * 5 * 0.8 })])[3]).toBeCloseTo(Math.sqrt(1.1 * 0.9), 3);
    expect(largerChange(1.1, 1.3)).toBe(1.3);
    expect(largerChange(0.9, 0.8)).toBe(0.8);
    expect(largerChange(1.21, 0.9)).toBeCloseTo(Math.sqrt(1.21 * 0.9), 9);
  });

  it('reads the dictionary alone for a speaker with a line lacking nuclei, and each speaker against their own lines', () => {
    const lines = [
      line(4, { nuclei: undefined }),
      line(4),
      line(5.2, { syllables: 4.4 * 5 }),
      line(6, { speaker: 'S2' }),
      line(6, { speaker: 'S2' }),
    ];
    const out = paceAgainstSpeaker(lines);
    expect(out[2]).toBeCloseTo(4.4 / 4, 3);
    expect(out.slice(3)).toEqual([1, 1]);
  });

  it('reads a lone line as the speaker’s usual pace, and null where a line has too little speech', () => {
    expect(paceAgainstSpeaker([line(4)])).toEqual([1]);
    expect(paceAgainstSpeaker([line(4), line(4, {}, 0.2)])).toEqual([1, null]);
  });
});
