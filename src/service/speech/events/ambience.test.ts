import { describe, expect, it } from 'vitest';
import {
  Ambience as AmbienceSchema,
  AmbienceSpan as AmbienceSpanSchema,
} from '../../../shared/schemas/analysis';
import { frameLevels } from '../../dsp/levels';
import { rng } from '../diarization/synthetic.testutil';
import { ambienceProfile, COMPETE_MARGIN_DB, lineAmbience, MAX_LAYERS, PROFILE_WINDOW } from './ambience';
import { AMBIENCE_CLASSES, EVENT_CLASSES } from './classes';
import { fakeTags, setScore } from './tags.testutil';

const LABELS = ['Speech', ...new Set([...Object.values(EVENT_CLASSES).flat(), ...AMBIENCE_CLASSES])];
const SR = 16_000;
const W = PROFILE_WINDOW;

describe('ambienceProfile', () => {
  it('merges windows of one family into one span named by its strongest class', () => {
    const tags = fakeTags(4 * W, LABELS);
    setScore(tags, 'White noise', 0, W - 1, 0.5);
    setScore(tags, 'Pink noise', W, 2 * W - 1, 0.6); // same family as White noise
    setScore(tags, 'White noise', W, 2 * W - 1, 0.35);
    setScore(tags, 'Mains hum', 2 * W, 4 * W - 1, 0.4);
    const duration = (4 * W - 1) * 0.48 + 0.975;
    const profile = ambienceProfile(tags, duration);
    for (const span of profile) expect(AmbienceSpanSchema.parse(span)).toEqual(span);
    expect(profile.map((s) => s.label)).toEqual(['White noise', 'Mains hum']);
    // White noise (0.5 + 0.35) / 2 = 0.425 beats Pink noise (0 + 0.6) / 2 = 0.3 over the two windows.
    expect(profile[0]!.score).toBeCloseTo(0.425, 3);
    expect(profile[0]!.start).toBe(0);
    expect(profile[0]!.end).toBeCloseTo(profile[1]!.start, 2);
    expect(profile[1]!.end).toBeCloseTo(duration, 2);
  });

  it('carries the background heard between lines under the speech, and splits halfway between two', () => {
    const tags = fakeTags(6 * W, LABELS);
    setScore(tags, 'Speech', 0, 6 * W - 1, 0.99);
    setScore(tags, 'Speech', 2, 2, 0.1); // a pause in window 0
    setScore(tags, 'Inside, small room', 2, 2, 0.3);
    setScore(tags, 'Speech', 5 * W + 1, 5 * W + 1, 0.1); // a pause in window 5
    setScore(tags, 'Mains hum', 5 * W + 1, 5 * W + 1, 0.3);
    // Weak scores under speech (below PROFILE_MIN_SCORE_UNDER_SPEECH) do not name a window.
    setScore(tags, 'Outside, rural or natural', W, 2 * W - 1, 0.05);
    const profile = ambienceProfile(tags, 15);
    expect(profile.map((s) => s.label)).toEqual(['Inside, small room', 'Mains hum']);
    // Windows 1–2 go with window 0, windows 3–4 with window 5.
    expect(profile[0]!.end).toBeCloseTo(3 * W * 0.48 + 0.2475, 2);
    expect(profile[0]!.score).toBeCloseTo(0.3, 3);
  });

  it('names a background under speech when the tagger hears it clearly', () => {
    const tags = fakeTags(2 * W, LABELS);
    setScore(tags, 'Speech', 0, 2 * W - 1, 0.9);
    setScore(tags, 'Inside, public space', 0, 2 * W - 1, 0.15);
    expect(ambienceProfile(tags, 5).map((s) => s.label)).toEqual(['Inside, public space']);
  });

  it('gives no spans when nothing is heard', () => {
    expect(ambienceProfile(setScore(fakeTags(3 * W, LABELS), 'Speech', 0, 3 * W - 1, 1), 7)).toEqual([]);
  });
});

/** Syllables: 200 ms of a 220 Hz tone with vowel-like harmonics, 100 ms pause, for `seconds`, at `amplitude`. */
function syllables(seconds: number, amplitude: number): Float32Array {
  const out = new Float32Array(Math.round(seconds * SR));
  for (let i = 0; i < out.length; i++) {
    if (i % 4800 >= 3200) continue;
    const t = i / SR;
    out[i] =
      amplitude *
      (Math.sin(2 * Math.PI * 220 * t) +
        0.5 * Math.sin(2 * Math.PI * 440 * t) +
        0.3 * Math.sin(2 * Math.PI * 660 * t));
  }
  return out;
}

function withNoise(pcm: Float32Array, amplitude: number, seed: number): Float32Array {
  const r = rng(seed);
  return pcm.map((x) => x + (r() * 2 - 1) * amplitude);
}

function rmsDb(pcm: Float32Array): number {
  return 10 * Math.log10(pcm.reduce((s, x) => s + x * x, 0) / pcm.length);
}

describe('lineAmbience', () => {
  const line = { start: 1, end: 7 };
  const speech = syllables(8, 0.1);
  speech.fill(0, 0, SR).fill(0, 7 * SR);
  const speechDb = rmsDb(speech.subarray(SR, 7 * SR));

  it('reads the level of steady noise under a line and the speech-to-noise margin', () => {
    for (const snr of [0, 5, 10, 20]) {
      // Uniform noise of amplitude a has RMS a/√3.
      const noiseDb = speechDb - snr;
      const a = Math.sqrt(3) * 10 ** (noiseDb / 20);
      const ambience = lineAmbience(line, {
        levels: frameLevels(withNoise(speech, a, snr + 1), SR),
        speech: [line],
      });
      expect(AmbienceSchema.parse(ambience)).toEqual(ambience);
      expect(Math.abs(ambience.sound.level_db! - noiseDb)).toBeLessThan(1);
      expect(Math.abs(ambience.sound.margin_db! - snr)).toBeLessThan(1.5);
      expect(ambience.competes).toBe(snr < COMPETE_MARGIN_DB);
      expect(ambience.source).toBe('measured');
      expect(ambience.layers).toEqual([]); // no tagger, no layers
      expect(ambience.sound.label).toBeNull();
    }
  });

  it('does not call clean speech competing', () => {
    const ambience = lineAmbience(line, {
      levels: frameLevels(withNoise(speech, 1e-4, 9), SR),
      speech: [line],
    });
    expect(ambience.competes).toBe(false);
    expect(ambience.sound.margin_db!).toBeGreaterThan(30);
  });

  it('lists the layers heard under the line, strongest first, and names the sound by the strongest', () => {
    const tags = fakeTags(20, LABELS);
    setScore(tags, 'Rain', 0, 19, 0.05);
    setScore(tags, 'Music', 0, 19, 0.3);
    setScore(tags, 'Traffic noise, roadway noise', 0, 19, 0.1);
    setScore(tags, 'Crowd', 0, 19, 0.08);
    setScore(tags, 'Wind', 0, 19, 0.01); // below LAYER_MIN_SCORE
    setScore(tags, 'Speech', 0, 19, 1); // never a layer
    const ambience = lineAmbience(line, { levels: frameLevels(speech, SR), tags });
    expect(ambience.layers.map((l) => l.label)).toEqual(['Music', 'Traffic noise, roadway noise', 'Crowd']);
    expect(ambience.layers).toHaveLength(MAX_LAYERS);
    expect(ambience.sound.label).toBe('Music');
  });
});
