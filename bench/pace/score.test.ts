import { describe, expect, it } from 'vitest';
import { absoluteError, labelShares, syllablesBy, tempoScores, type ClipMeasure } from './score';

/** A clip at a tempo whose counts and time follow the tempo exactly, unless told otherwise. */
function clip(file: string, tempo: number, o: Partial<ClipMeasure> = {}): ClipMeasure {
  return {
    file,
    source: 'amateur',
    half: 'test',
    tempo,
    duration: 4 / tempo,
    referenceSyllables: 20,
    dictionarySyllables: 20,
    articulationSeconds: 4 / tempo,
    nuclei: [16],
    ...o,
  };
}

describe('bench/pace scores', () => {
  it('reads a tempo change exactly when the counts hold, and the recognizer’s losses when they do not', () => {
    const measures = [clip('a', 1), clip('a', 1.5, { dictionarySyllables: 15 }), clip('b', 1), clip('b', 1.5, { dictionarySyllables: 15 })];
    const [dictionary] = tempoScores(measures, 'dictionary', 0);
    expect(dictionary).toMatchObject({ tempo: 1.5, clips: 2, within10: 0 });
    expect(dictionary!.medianRatio).toBeCloseTo(0.75, 9);
    const [nuclei] = tempoScores(measures, 'nuclei', 0);
    expect(nuclei).toMatchObject({ medianRatio: 1, within10: 1 });
  });

  it('scales nuclei by the source’s dictionary syllables per nucleus at 1× (shipped)', () => {
    const measures = [clip('a', 1), clip('a', 1.3, { dictionarySyllables: 10 })];
    const s = syllablesBy(measures, 'shipped', 0);
    expect(s.get(measures[0]!)).toBe(20);
    expect(s.get(measures[1]!)).toBe(20);
    expect(absoluteError(measures, 'shipped', 0).medianAbs).toBe(0);
    expect(absoluteError(measures, 'nuclei', 0).medianSigned).toBeCloseTo(-0.2, 9);
    expect(absoluteError(measures, 'dictionary', 0, 1.3).medianSigned).toBeCloseTo(-0.5, 9);
  });

  it('reads rushed and slow against the source’s clips at 1×', () => {
    const measures = [clip('a', 1), clip('b', 1), clip('a', 1.3), clip('b', 1.3, { nuclei: [12] }), clip('a', 0.8)];
    expect(labelShares(measures, 'nuclei', 0, 1.3)).toEqual({ rushed: 0.5, slow: 0 });
    expect(labelShares(measures, 'nuclei', 0, 0.8)).toEqual({ rushed: 0, slow: 1 });
  });
});
