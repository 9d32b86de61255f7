/**
 * A small Analysis document for the studio's unit tests, built as the service builds one (every field
 * present), and checked against the shared schema by the tests that use it.
 */
import type { AnalysisDocument, AnalysisSegment, Intelligence } from '../../../../shared/schemas/analysis';

export const SESSION_ID = '3f1c2a9e-5b7d-4c1e-9a0b-2d6e8f4a1c3b';
const PROJECT_ID = '0b6f0d7e-2f6a-4a47-9f4e-0c3c1d2e9a10';

export function segment(
  id: number,
  speaker: string,
  start: number,
  end: number,
  extra: Partial<AnalysisSegment> = {},
): AnalysisSegment {
  return {
    id,
    speaker,
    start,
    end,
    speech_start: start + 0.1,
    speech_end: end - 0.1,
    text: `line ${id}`,
    prosody: {
      energy_db: -22.5,
      energy_range_db: 14.2,
      voiced_ratio: 0.62,
      pitch_hz: 118.4,
      pitch_range_st: 7.8,
      pitch_variability_st: 2.1,
      pitch_perturbation: 0.0123,
      amplitude_perturbation: 0.0871,
      hnr_db: 12.4,
      pauses: [
        {
          start: start + 1,
          end: start + 1.6,
          duration: 0.6,
          after_word: 'well',
          filled: false,
          sentence_end: true,
        },
      ],
      articulation_rate: 4.8,
      pace_wpm: 162,
      hesitations: 1,
      longest_pause: 0.6,
      pace_vs_speaker: 1.12,
      pitch_vs_speaker_st: -1.5,
      energy_vs_speaker_db: 2.25,
      pitch_range_vs_speaker_st: 0.8,
      source: 'measured',
    },
    quality: {
      snr_db: 31.2,
      noise_db: -61.3,
      clipping_ratio: 0,
      low_frequency_share_db: -18.2,
      wind_index: 0.02,
      plosives: 0,
      mic: 'near',
      mos: null,
      score: 0.81,
      issues: [],
      sources: ['measured'],
    },
    ambience: {
      layers: [],
      sound: { label: null, level_db: -61.3, margin_db: 38.8 },
      competes: false,
      source: 'measured',
    },
    perception: null,
    delivery: null,
    emphasis: [],
    ...extra,
  };
}

export function intelligence(extra: Partial<Intelligence> = {}): Intelligence {
  const clipped = segment(1, 'S2', 4, 9);
  clipped.quality = {
    ...clipped.quality,
    clipping_ratio: 0.012,
    mos: { sig: 3.1, bak: 3.9, ovrl: 2.8, p808: 3.3, source: 'heard' },
    score: 0.45,
    issues: [{ type: 'clipping', severity: 0.7, evidence: 'clipping_ratio 1.2% > 0.1%', source: 'measured' }],
    sources: ['measured', 'heard'],
  };
  return {
    status: 'complete',
    stage: 'complete',
    progress: 1,
    run_id: 'b7f3a9a0-7d7c-4c39-9f0e-5b1a2c3d4e5f',
    version: '1.0.0',
    error: null,
    duration: 20,
    segments: [segment(0, 'S1', 0.5, 3.5), clipped, segment(2, 'S1', 10, 18)],
    events: [
      {
        type: 'applause',
        start: 3.6,
        end: 3.9,
        speaker: 'S1',
        during_speech: false,
        confidence: 0.83,
        sources: ['heard'],
      },
      {
        type: 'pace_shift',
        at: 10,
        start: 4,
        end: 18,
        speaker: 'S1',
        change: -0.3,
        direction: 'slower',
        source: 'measured',
      },
      {
        type: 'laughter',
        start: 12,
        end: 13.5,
        speaker: null,
        during_speech: true,
        confidence: 0.64,
        sources: ['heard'],
      },
    ],
    speakers: {},
    moments: [],
    recovered: [],
    music: [],
    ambience_profile: [],
    baselines: {},
    coverage: { segments: 3, measured: 3, listened: 1 },
    conditions: [
      {
        type: 'hum',
        severity: 0.4,
        evidence: '50 Hz hum at -48 dBFS, 13 dB over the noise floor',
        ranges: [
          { start: 0, end: 2 },
          { start: 15, end: 20 },
        ],
        source: 'measured',
      },
    ],
    summary: { overview: '', speakers: [], watch_outs: [], watch_out_items: [] },
    timings: { total: 2.5, stages: { decoding: 0.1 } },
    warnings: [],
    last_failure: null,
    started_at: '2026-01-01T10:00:00.000Z',
    completed_at: '2026-01-01T10:00:02.500Z',
    ...extra,
  };
}

export function analysisDocument(extra: Partial<Intelligence> = {}): AnalysisDocument {
  return {
    id: SESSION_ID,
    intelligence: intelligence(extra),
    speaker_map: {},
    project: { id: PROJECT_ID, key: 'ep1', name: 'Episode 1', speakers: [] },
  };
}
