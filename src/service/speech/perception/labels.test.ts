import { describe, expect, it } from 'vitest';
import type { Emphasis, Prosody } from '../../../shared/schemas/analysis';
import { deliveryLabels, endingDrop, hesitationsPerMinute, type LineFeatures } from './labels';
import { BASELINE, evenWords, usualProsody } from './testing.testutil';

const stressed: Emphasis = { word_index: 2, word: 'w2', start: 0.5, end: 0.7, strength: 0.6, source: 'estimate' };

function features(prosody: Partial<Prosody> = {}, over: Partial<LineFeatures> = {}): LineFeatures {
  return { speech_seconds: 10, prosody: usualProsody(prosody), words: evenWords(12), baseline: BASELINE, speaker_hesitations_per_minute: 2, emphasis: [], ...over };
}

describe('delivery labels', () => {
  it('a line at the speaker’s baseline has none', () => {
    expect(deliveryLabels(features())).toEqual([]);
  });

  it('rushed from 1.2× the speaker’s pace, slow at 0.8×, nothing between', () => {
    expect(deliveryLabels(features({ pace_vs_speaker: 1.2 }))).toEqual(['rushed']);
    expect(deliveryLabels(features({ pace_vs_speaker: 1.19 }))).toEqual([]);
    expect(deliveryLabels(features({ pace_vs_speaker: 0.8 }))).toEqual(['slow']);
    expect(deliveryLabels(features({ pace_vs_speaker: null }))).toEqual([]);
  });

  it('flat: range 3 st under the speaker’s and at most 0.6 of it, on at least 1.5 s of speech', () => {
    expect(deliveryLabels(features({ pitch_range_st: 4.5, pitch_range_vs_speaker_st: -3.5 }))).toEqual(['flat']);
    // 5 st of a usual 8 is narrower by 3 but more than 0.6 of it.
    expect(deliveryLabels(features({ pitch_range_st: 5, pitch_range_vs_speaker_st: -3 }))).toEqual([]);
    expect(deliveryLabels(features({ pitch_range_st: 4.5, pitch_range_vs_speaker_st: -3.5 }, { speech_seconds: 1 }))).toEqual([]);
  });

  it('relative to the speaker: a naturally monotone speaker’s usual range is not flat', () => {
    const monotone = { ...BASELINE, pitch_range_st: 3 };
    expect(deliveryLabels(features({ pitch_range_st: 3, pitch_range_vs_speaker_st: 0 }, { baseline: monotone }))).toEqual([]);
  });

  it('emphatic: 3 dB louder than usual with a stressed word, or a 4 st wider range with two', () => {
    expect(deliveryLabels(features({ energy_vs_speaker_db: 3 }, { emphasis: [stressed] }))).toEqual(['emphatic']);
    expect(deliveryLabels(features({ energy_vs_speaker_db: 3 }))).toEqual([]);
    expect(deliveryLabels(features({ pitch_range_vs_speaker_st: 4 }, { emphasis: [stressed] }))).toEqual([]);
    expect(deliveryLabels(features({ pitch_range_vs_speaker_st: 4 }, { emphasis: [stressed, { ...stressed, word_index: 5 }] }))).toEqual(['emphatic']);
  });

  it('hesitant: two or more hesitations at 8 a minute or more, and twice the speaker’s own rate', () => {
    expect(deliveryLabels(features({ hesitations: 2 }))).toEqual(['hesitant']); // 12/min vs usual 2/min
    expect(deliveryLabels(features({ hesitations: 1 }, { speech_seconds: 4 }))).toEqual([]);
    expect(deliveryLabels(features({ hesitations: 2 }, { speech_seconds: 20 }))).toEqual([]); // 6/min
    // A speaker who hesitates 10 times a minute anyway: 12/min is their usual.
    expect(deliveryLabels(features({ hesitations: 2 }, { speaker_hesitations_per_minute: 10 }))).toEqual([]);
    expect(hesitationsPerMinute(3, 30)).toBe(6);
    expect(hesitationsPerMinute(3, 0)).toBe(0);
  });

  it('quiet 6 dB under the speaker’s level; mumbled 4 dB under with a range 2 st narrower', () => {
    expect(deliveryLabels(features({ energy_vs_speaker_db: -6 }))).toEqual(['quiet']);
    expect(deliveryLabels(features({ energy_vs_speaker_db: -4, pitch_range_vs_speaker_st: -2 }))).toEqual(['mumbled']);
    expect(deliveryLabels(features({ energy_vs_speaker_db: -7, pitch_range_vs_speaker_st: -2.5 }))).toEqual(['mumbled', 'quiet']);
  });

  it('trailing off: the last two words 8 dB or more under the rest', () => {
    const words = evenWords(8);
    words[6]!.energy_db = -33;
    words[7]!.energy_db = -33;
    expect(endingDrop(words)).toBeCloseTo(-8, 6);
    expect(deliveryLabels(features({}, { words }))).toEqual(['trailing_off']);
    words[6]!.energy_db = -30;
    expect(deliveryLabels(features({}, { words }))).toEqual([]);
    expect(endingDrop(evenWords(3))).toBeNull();
  });
});
