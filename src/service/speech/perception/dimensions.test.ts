import { describe, expect, it } from 'vitest';
import type { Prosody } from '../../../shared/schemas/analysis';
import { dimensions, emotionOf, type Dimensions } from './dimensions';
import type { LineFeatures } from './labels';
import { BASELINE, evenWords, usualProsody } from './testing.testutil';

function features(prosody: Partial<Prosody> = {}): LineFeatures {
  return { speech_seconds: 10, prosody: usualProsody(prosody), words: evenWords(12), baseline: BASELINE, speaker_hesitations_per_minute: 2, emphasis: [] };
}
const dims = (d: Partial<Dimensions>): Dimensions => ({ arousal: 0.5, valence: 0, confidence: 0.7, engagement: 0.55, intensity: 0, ...d });

describe('perception dimensions', () => {
  it('a line at the baseline sits at the middle', () => {
    expect(dimensions(features(), [], [])).toEqual({ arousal: 0.5, valence: 0, confidence: 0.7, engagement: 0.55, intensity: 0 });
  });

  it('louder, higher, wider and faster raise arousal by the documented weights', () => {
    // 0.5 + 0.03·5 + 0.04·2 + 0.03·3 + 0.6·0.2 = 0.94
    expect(dimensions(features({ energy_vs_speaker_db: 5, pitch_vs_speaker_st: 2, pitch_range_vs_speaker_st: 3, pace_vs_speaker: 1.2 }), [], []).arousal).toBe(0.94);
    expect(dimensions(features({ energy_vs_speaker_db: -20, pace_vs_speaker: 0.6 }), [], []).arousal).toBe(0);
  });

  it('engagement falls with level, range, a slow pace and flat or mumbled delivery, and rises with stress', () => {
    // 0.55 − 0.03·12 = 0.19
    expect(dimensions(features({ energy_vs_speaker_db: -12 }), [], []).engagement).toBe(0.19);
    // 0.55 − 0.3·0.2 − 0.15 (flat) = 0.34
    expect(dimensions(features({ pace_vs_speaker: 0.8 }), ['flat'], []).engagement).toBe(0.34);
    // a faster pace alone does not make a line more engaging
    expect(dimensions(features({ pace_vs_speaker: 1.3 }), [], []).engagement).toBe(0.55);
  });

  it('confidence falls with hesitation, trailing off and a shaky voice', () => {
    // 0.7 − 0.2 − 0.05·3 = 0.35
    expect(dimensions(features({ hesitations: 3 }), ['hesitant'], []).confidence).toBe(0.35);
    // jitter 1.5× the speaker's usual: −0.1
    expect(dimensions(features({ pitch_perturbation: 0.015 }), [], []).confidence).toBe(0.6);
    expect(dimensions(features(), ['trailing_off'], []).confidence).toBe(0.6);
  });

  it('valence leans positive with laughter after the line and a lively melody, negative when flat', () => {
    expect(dimensions(features(), [], ['laughter']).valence).toBe(0.3);
    expect(dimensions(features({ pitch_range_vs_speaker_st: 5 }), [], []).valence).toBe(0.2);
    expect(dimensions(features(), ['flat'], []).valence).toBe(-0.1);
  });

  it('intensity is the distance from neutral', () => {
    expect(dimensions(features({ energy_vs_speaker_db: 20, pace_vs_speaker: 2 }), [], []).intensity).toBeCloseTo(Math.SQRT1_2, 2);
  });
});

describe('emotion', () => {
  it('follows the rules in order', () => {
    expect(emotionOf(dims({}), [], [])).toBe('neutral');
    expect(emotionOf(dims({ valence: 0.3 }), [], ['laughter'])).toBe('amused');
    expect(emotionOf(dims({ confidence: 0.3 }), ['hesitant'], [])).toBe('uncertain');
    expect(emotionOf(dims({ confidence: 0.5 }), ['hesitant'], [])).toBe('neutral');
    expect(emotionOf(dims({ arousal: 0.75 }), [], [])).toBe('excited');
    expect(emotionOf(dims({ arousal: 0.75, valence: -0.1 }), [], [])).toBe('tense');
    expect(emotionOf(dims({ arousal: 0.25, valence: -0.3 }), [], [])).toBe('sad');
    expect(emotionOf(dims({ arousal: 0.3 }), [], [])).toBe('calm');
    expect(emotionOf(dims({ valence: 0.3 }), [], [])).toBe('warm');
  });
});
