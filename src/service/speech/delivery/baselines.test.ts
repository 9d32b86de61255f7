import { describe, expect, it } from 'vitest';
import { relativeToSpeaker, speakerBaselines, type BaselineLine } from './baselines';

const line = (speaker: string, over: Partial<BaselineLine>): BaselineLine => ({
  speaker,
  speech_seconds: 4,
  pitch_hz: 120,
  pitch_range_st: 6,
  energy_db: -24,
  energy_range_db: 12,
  pitch_perturbation: 0.01,
  syllables: 16,
  articulation_seconds: 4,
  ...over,
});

describe('speaker baselines', () => {
  it('takes speech-weighted medians per speaker and the rate as a ratio of sums', () => {
    const b = speakerBaselines([
      line('S1', { pitch_hz: 100, speech_seconds: 10, syllables: 40, articulation_seconds: 10 }),
      line('S1', { pitch_hz: 300, speech_seconds: 1, syllables: 10, articulation_seconds: 1 }),
      line('S1', { pitch_hz: 110, speech_seconds: 2, syllables: 10, articulation_seconds: 2 }),
      line('S2', { pitch_hz: null, energy_db: -30 }),
    ]);
    expect(b.S1!.pitch_hz).toBe(100);
    expect(b.S1!.articulation_rate).toBeCloseTo(60 / 13, 2);
    expect(b.S1!.lines).toBe(3);
    expect(b.S1!.speech_seconds).toBe(13);
    expect(b.S2!.pitch_hz).toBeNull();
    expect(b.S2!.energy_db).toBe(-30);
  });

  it('expresses a line relative to its speaker', () => {
    const rel = relativeToSpeaker(
      { articulation_rate: 6.5, pitch_hz: 240, energy_db: -18, pitch_range_st: 4 },
      { pitch_hz: 120, pitch_range_st: 6, articulation_rate: 5, energy_db: -24, pitch_perturbation: 0.01, energy_range_db: 12, lines: 3, speech_seconds: 12 },
    );
    expect(rel).toEqual({ pace_vs_speaker: 1.3, pitch_vs_speaker_st: 12, energy_vs_speaker_db: 6, pitch_range_vs_speaker_st: -2 });
    expect(relativeToSpeaker({ articulation_rate: null, pitch_hz: 100, energy_db: null, pitch_range_st: null }, undefined)).toEqual({
      pace_vs_speaker: null,
      pitch_vs_speaker_st: null,
      energy_vs_speaker_db: null,
      pitch_range_vs_speaker_st: null,
    });
  });
});
