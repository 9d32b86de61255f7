import { describe, expect, it } from 'vitest';
import { articulationRate, calibratedSyllables, linePace, speakerCalibratedSyllables } from './pace';

const dict = { count: (w: string) => ({ hello: 2, there: 1, wonderful: 3, um: 0 })[w.toLowerCase()] ?? 1 };

describe('linePace', () => {
  it('counts syllables per second of speech without pauses, and words per minute over the span', () => {
    const words = [{ word: 'hello' }, { word: 'um' }, { word: 'there' }, { word: 'wonderful' }];
    const p = linePace(words, dict, { speech_start: 1, speech_end: 4, pause_seconds: 1 });
    expect(p.syllables).toBe(6);
    expect(p.articulation_seconds).toBe(2);
    expect(p.articulation_rate).toBe(3);
    expect(p.pace_wpm).toBe(60); // 3 words (the filler excluded) in 3 s
  });

  it('says nothing when there is too little speech', () => {
    const p = linePace([{ word: 'hi' }], dict, { speech_start: 0, speech_end: 0.2, pause_seconds: 0 });
    expect(p.articulation_rate).toBeNull();
    expect(p.pace_wpm).toBeNull();
    expect(linePace([], dict, { speech_start: 0, speech_end: 3, pause_seconds: 0 }).articulation_rate).toBeNull();
  });
});

describe('calibratedSyllables', () => {
  it('scales each line’s nuclei by the speaker’s dictionary syllables per nucleus, keeping their sum', () => {
    // The recognizer dropped words on the fast third line (6 syllables for 10 nuclei).
    const lines = [
      { dictionary: 12, nuclei: 10 },
      { dictionary: 12, nuclei: 10 },
      { dictionary: 6, nuclei: 10 },
    ];
    const out = calibratedSyllables(lines);
    expect(out).toEqual([10, 10, 10]); // 30 syllables over 30 nuclei
    expect(out.reduce((a, b) => a + b, 0)).toBe(30);
  });

  it('calibrates on the usual lines only when told, and keeps the dictionary when there is nothing to scale', () => {
    expect(calibratedSyllables([{ dictionary: 10, nuclei: 8 }, { dictionary: 4, nuclei: 12, usual: false }])).toEqual([10, 15]);
    expect(calibratedSyllables([{ dictionary: 10, nuclei: 0 }, { dictionary: 4, nuclei: 0 }])).toEqual([10, 4]);
    expect(calibratedSyllables([{ dictionary: 0, nuclei: 3 }])).toEqual([0]);
  });
});

describe('speakerCalibratedSyllables', () => {
  it('calibrates each speaker on their own lines, in the order given', () => {
    const out = speakerCalibratedSyllables([
      { speaker: 'A', syllables: 10, nuclei: 10 },
      { speaker: 'B', syllables: 9, nuclei: 6 },
      { speaker: 'A', syllables: 10, nuclei: 30 },
      { speaker: 'B', syllables: 9, nuclei: 6 },
    ]);
    expect(out).toEqual([5, 9, 15, 9]);
  });

  it('keeps a speaker’s dictionary counts when any of their lines has no nuclei count (a run stored before)', () => {
    const out = speakerCalibratedSyllables([
      { speaker: 'A', syllables: 10, nuclei: 10 },
      { speaker: 'A', syllables: 7 },
      { speaker: 'B', syllables: 9, nuclei: 3 },
    ]);
    expect(out).toEqual([10, 7, 9]);
  });
});

describe('articulationRate', () => {
  it('is syllables over articulation seconds, null for too little time or nothing counted', () => {
    expect(articulationRate(10, 2)).toBe(5);
    expect(articulationRate(7.5, 1.5)).toBe(5);
    expect(articulationRate(3, 0.2)).toBeNull();
    expect(articulationRate(0, 2)).toBeNull();
  });
});
