/**
 * The test document of document.ts after the listening and summary stages: perception,
 * delivery and emphasis on every line, both speakers' profiles with trajectories, moments of each type,
 * and the written summary with structured watch-outs. Checked against the shared schema by the tests.
 */
import type {
  Intelligence,
  Perception,
  SpeakerProfile,
  TrajectoryPoint,
} from '../../../../shared/schemas/analysis';
import { intelligence } from './document';

function perception(start: number, end: number, extra: Partial<Perception>): Perception {
  return {
    emotion: 'neutral',
    intensity: 0.2,
    valence: 0,
    arousal: 0.4,
    confidence: 0.7,
    engagement: 0.6,
    take_quality: 0.7,
    delivery: [],
    reactions: [],
    emphasis: [],
    audio_issues: [],
    note: 'Even read.',
    start,
    end,
    source: 'estimate',
    ...extra,
  };
}

function trajectoryPoint(
  segment_id: number,
  start: number,
  end: number,
  p: Perception,
  energy_db: number | null,
  score: number,
): TrajectoryPoint {
  return {
    t: (start + end) / 2,
    start,
    end,
    segment_id,
    emotion: p.emotion,
    valence: p.valence,
    arousal: p.arousal,
    confidence: p.confidence,
    engagement: p.engagement,
    energy_db,
    score,
  };
}

function profile(trajectory: TrajectoryPoint[], extra: Partial<SpeakerProfile>): SpeakerProfile {
  return {
    talk_seconds: 10,
    turns: 2,
    hesitations: 1,
    trajectory,
    confidence: 0.72,
    engagement: 0.64,
    valence: 0.18,
    arousal: 0.41,
    emotions: { calm: 0.62, neutral: 0.38 },
    delivery_labels: { hesitant: 1 },
    articulation_rate: 4.8,
    pitch_hz: 118.4,
    pitch_range_st: 7.8,
    fillers_per_minute: 1.5,
    reactions: { applause: 1 },
    summary: 'Ada is calm and steady; one hesitant line.',
    ...extra,
  };
}

export function listenedIntelligence(extra: Partial<Intelligence> = {}): Intelligence {
  const intel = intelligence();
  const [a, b, c] = intel.segments as [
    Intelligence['segments'][number],
    Intelligence['segments'][number],
    Intelligence['segments'][number],
  ];
  a.perception = perception(a.start, a.end, {
    emotion: 'calm',
    valence: 0.3,
    arousal: 0.2,
    delivery: ['hesitant'],
    note: 'Two hesitations; the second half is usable.',
  });
  a.delivery = {
    score: 0.45,
    label: 'hesitant',
    flags: [
      { type: 'hesitant', source: 'estimate' },
      { type: 'long_pause', source: 'measured' },
    ],
  };
  b.perception = perception(b.start, b.end, {
    emotion: 'tense',
    valence: -0.4,
    arousal: 0.8,
    delivery: ['rushed'],
    audio_issues: ['clipping'],
    note: 'Rushed and clipped; re-record.',
  });
  b.delivery = { score: 0.2, label: 'weak', flags: [{ type: 'rushed', source: 'estimate' }] };
  c.perception = perception(c.start, c.end, {
    emotion: 'warm',
    valence: 0.6,
    arousal: 0.5,
    delivery: ['emphatic'],
    emphasis: ['line'],
    note: 'Strong line.',
  });
  c.delivery = { score: 0.88, label: 'great', flags: [{ type: 'emphatic', source: 'estimate' }] };
  c.emphasis = [{ word_index: 0, word: 'line', start: 10.2, end: 10.6, strength: 0.7, source: 'estimate' }];
  return {
    ...intel,
    coverage: { ...intel.coverage, listened: 1 },
    speakers: {
      S1: profile(
        [
          trajectoryPoint(0, a.start, a.end, a.perception, -22.5, 0.45),
          trajectoryPoint(2, c.start, c.end, c.perception, -19.1, 0.88),
        ],
        {},
      ),
      S2: profile([trajectoryPoint(1, b.start, b.end, b.perception, null, 0.2)], {
        talk_seconds: 5,
        turns: 1,
        hesitations: 0,
        emotions: { tense: 1 },
        delivery_labels: { rushed: 1 },
        reactions: {},
        summary: 'Grace rushes her only line, and it clips.',
      }),
    },
    moments: [
      {
        id: 'select-2',
        type: 'select',
        start: 10,
        end: 18,
        speaker: 'S1',
        score: 0.86,
        reason: 'Complete sentence, great delivery, clean audio.',
        segment_ids: [2],
        text: 'line 2',
        sentence_complete: true,
      },
      {
        id: 'unusable-1',
        type: 'unusable',
        start: 4,
        end: 9,
        speaker: 'S2',
        score: 0.7,
        reason: 'Clipping on 1.2% of the line.',
        segment_ids: [1],
      },
      {
        id: 'trim-0-lead',
        type: 'trim',
        start: 0.5,
        end: 1.2,
        speaker: 'S1',
        score: 0.6,
        reason: 'Dead air before the first word.',
        segment_ids: [0],
      },
    ],
    summary: {
      overview: 'Two speakers over 20 s; Ada carries most of it, one of Grace’s lines clips.',
      speakers: [
        { speaker: 'S1', summary: 'Ada is calm and steady; one hesitant line.' },
        { speaker: 'S2', summary: 'Grace rushes her only line, and it clips.' },
      ],
      watch_outs: [
        'Clipping at 0:04–0:09: re-record or restore S2’s line.',
        'S1 hesitates at 0:00–0:03 and 0:10–0:18.',
      ],
      watch_out_items: [
        {
          kind: 'clipping',
          text: 'Clipping at 0:04–0:09: re-record or restore S2’s line.',
          ranges: [{ start: 4, end: 9 }],
        },
        {
          kind: 'hesitant',
          text: 'S1 hesitates at 0:00–0:03 and 0:10–0:18.',
          ranges: [
            { start: 10, end: 18 },
            { start: 0.5, end: 3.5 },
          ],
        },
      ],
    },
    ...extra,
  };
}
