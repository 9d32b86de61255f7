import { describe, expect, it } from 'vitest';
import { linePace } from './pace';

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
