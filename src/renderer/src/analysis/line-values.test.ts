import { describe, expect, it } from 'vitest';
import { lineSections, paceRatioText, perceptionSection } from './line-values';
import { intelligence, segment } from './testing/document';
import { listenedIntelligence } from './testing/listened';

const byKey = (rows: { key: string; text: string; source: string | null }[]) =>
  Object.fromEntries(rows.map((r) => [r.key, [r.text, r.source]]));

describe('lineSections', () => {
  it('lists prosody with units, each marked as measured', () => {
    const s = lineSections(segment(0, 'S1', 0, 4));
    expect(byKey(s.prosody)).toMatchObject({
      pitch_hz: ['118.4 Hz', 'measured'],
      pitch_range_st: ['7.8 st', 'measured'],
      pitch_perturbation: ['1.23 %', 'measured'],
      amplitude_perturbation: ['8.71 %', 'measured'],
      hnr_db: ['12.4 dB', 'measured'],
      energy_db: ['−22.5 dBFS', 'measured'],
      voiced_ratio: ['62 %', 'measured'],
      articulation_rate: ['4.80 syll/s', 'measured'],
      pace_wpm: ['162 wpm', 'measured'],
      hesitations: ['1', 'measured'],
      longest_pause: ['0.60 s', 'measured'],
    });
    expect(s.prosody.find((r) => r.key === 'pitch_hz')!.raw).toBe(118.4);
  });

  it('shows values relative to the speaker with sign and direction, and the speaker’s usual value', () => {
    const baseline = {
      pitch_hz: 125,
      pitch_range_st: 7,
      articulation_rate: 4.29,
      energy_db: -24.7,
      pitch_perturbation: 0.01,
      energy_range_db: 14,
      lines: 9,
      speech_seconds: 40,
    };
    const s = lineSections(segment(0, 'S1', 0, 4), baseline);
    expect(byKey(s.relative)).toMatchObject({
      pace_vs_speaker: ['1.12× (12% faster)', 'measured'],
      pitch_vs_speaker_st: ['−1.5 st', 'measured'],
      energy_vs_speaker_db: ['+2.3 dB', 'measured'],
      pitch_range_vs_speaker_st: ['+0.8 st', 'measured'],
    });
    expect(s.relative[0]!.hint).toBe('The speaker’s usual value: 4.29 syll/s');
  });

  it('marks DNSMOS scores as heard and the score as following them; without a model the score is an estimate', () => {
    const [, clipped] = intelligence().segments;
    const s = lineSections(clipped!);
    expect(byKey(s.mos!)).toEqual({
      'mos.sig': ['3.10 / 5', 'heard'],
      'mos.bak': ['3.90 / 5', 'heard'],
      'mos.ovrl': ['2.80 / 5', 'heard'],
      'mos.p808': ['3.30 / 5', 'heard'],
    });
    expect(byKey(s.quality)).toMatchObject({
      score: ['0.45', 'heard'],
      clipping_ratio: ['1.20 %', 'measured'],
      mic: ['near', 'measured'],
    });
    expect(s.issues).toEqual([
      { type: 'clipping', severity: 0.7, evidence: 'clipping_ratio 1.2% > 0.1%', source: 'measured' },
    ]);

    const plain = lineSections(segment(0, 'S1', 0, 4));
    expect(plain.mos).toBeNull();
    expect(byKey(plain.quality).score).toEqual(['0.81', 'estimate']);
  });

  it('lists pauses and shows a dash for what could not be measured', () => {
    const seg = segment(0, 'S1', 0, 4);
    seg.prosody = {
      ...seg.prosody,
      pitch_hz: null,
      hnr_db: null,
      pitch_vs_speaker_st: null,
      energy_vs_speaker_db: 0,
    };
    const s = lineSections(seg);
    expect(byKey(s.prosody).pitch_hz![0]).toBe('—');
    expect(byKey(s.relative).pitch_vs_speaker_st![0]).toBe('—');
    expect(byKey(s.relative).energy_vs_speaker_db![0]).toBe('±0.0 dB');
    expect(s.pauses).toEqual([
      { start: 1, duration: 0.6, afterWord: 'well', filled: false, sentenceEnd: true },
    ]);
  });
});

describe('paceRatioText', () => {
  it('reads a ratio as faster or slower than usual', () => {
    expect(paceRatioText(0.7)).toBe('0.70× (30% slower)');
    expect(paceRatioText(1)).toBe('1.00× (usual pace)');
    expect(paceRatioText(null)).toBe('—');
  });
});

describe('how the line sounds', () => {
  it('is null until the listening stage has run', () => {
    expect(perceptionSection(segment(0, 'S1', 0, 2))).toBeNull();
  });

  it('lists emotion, its measures and the delivery grade with the source, and each label once', () => {
    const line = listenedIntelligence().segments[0]!;
    const s = perceptionSection(line)!;
    expect(s.rows.map((r) => [r.key, r.text, r.source])).toEqual([
      ['perception.emotion', 'calm', 'estimate'],
      ['perception.intensity', '0.20', 'estimate'],
      ['perception.valence', '0.30', 'estimate'],
      ['perception.arousal', '0.20', 'estimate'],
      ['perception.confidence', '0.70', 'estimate'],
      ['perception.engagement', '0.60', 'estimate'],
      ['perception.take_quality', '0.70', 'estimate'],
      ['delivery.score', 'hesitant · 0.45', 'estimate'],
    ]);
    // `hesitant` is both a label and a flag; `long_pause` a measured flag.
    expect(s.labels).toEqual([
      { type: 'hesitant', source: 'estimate' },
      { type: 'long_pause', source: 'measured' },
    ]);
    expect(s.note).toBe('Two hesitations; the second half is usable.');
    expect(lineSections(line).perception).toEqual(s);
  });
});
