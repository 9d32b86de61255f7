import { describe, expect, it } from 'vitest';
import { AnalysisDocument } from '../../../shared/schemas/analysis';
import { analysisMarkers, deliveryMarkers, momentMarkers } from './markers';
import { legendEntries, visibleMarkers } from '../markers/filters';
import { layoutLanes } from '../markers/layout';
import { analysisDocument, intelligence, segment } from './testing/document';
import { listenedIntelligence } from './testing/listened';

const ctx = { speakerName: (s: string) => (s === 'S1' ? 'Ada' : s), formatTime: (t: number) => `${t}s` };

describe('analysisMarkers', () => {
  it('is built from a document that the shared schema accepts', () => {
    expect(() => AnalysisDocument.parse(analysisDocument())).not.toThrow();
  });

  it('puts each condition range, each line issue and each event in its lane at its time', () => {
    const markers = analysisMarkers(intelligence(), ctx);
    const brief = markers.map((m) => [m.lane, m.kind, m.start, m.end, m.at ?? null]);
    expect(brief).toEqual([
      ['conditions', 'condition.hum', 0, 2, null],
      ['conditions', 'condition.hum', 15, 20, null],
      ['issues', 'issue.clipping', 4, 9, null],
      ['events', 'event.applause', 3.6, 3.9, null],
      ['events', 'event.pace_shift', 4, 18, 10],
      ['events', 'event.laughter', 12, 13.5, null],
    ]);
    expect(new Set(markers.map((m) => m.id)).size).toBe(markers.length);
  });

  it('says what each marker is and what backs it', () => {
    const [hum, , clip, applause, shift, laughter] = analysisMarkers(intelligence(), ctx);
    expect(hum!.label).toBe('Hum (recording condition)');
    expect(hum!.detail).toContain('50 Hz hum at -48 dBFS, 13 dB over the noise floor');
    expect(hum!.severity).toBe(0.4);
    expect(clip!.segmentId).toBe(1);
    expect(clip!.detail).toEqual([
      'Line by S2, 4s – 9s',
      'clipping_ratio 1.2% > 0.1%',
      'Severity 70%',
      'Source: measured (read from the signal)',
    ]);
    expect(applause!.detail).toEqual([
      '3.6s – 3.9s',
      'Confidence 83%',
      'Between lines',
      'Ada had the floor',
      'Source: heard (a model listened to the audio)',
    ]);
    expect(shift!.label).toBe('Pace shift: 30% slower');
    expect(shift!.detail[0]).toBe('Ada speaks 30% slower from 10s');
    expect(laughter!.detail).toContain('Under speech');
  });

  it('is empty for a document with nothing found yet', () => {
    expect(analysisMarkers(intelligence({ segments: [], events: [], conditions: [] }), ctx)).toEqual([]);
  });
});

describe('moment and delivery lanes', () => {
  it('places moments and delivery labels in their own lanes', () => {
    const line = segment(4, 'S1', 30, 34);
    line.perception = {
      emotion: 'neutral',
      intensity: 0.4,
      valence: 0,
      arousal: 0.5,
      confidence: 0.6,
      engagement: 0.5,
      take_quality: 0.4,
      delivery: ['rushed'],
      reactions: [],
      emphasis: [],
      audio_issues: [],
      note: 'Rushed: 30% faster than usual.',
      start: 30,
      end: 34,
      source: 'estimate',
    };
    line.delivery = {
      score: 0.3,
      label: 'weak',
      flags: [
        { type: 'rushed', source: 'estimate' },
        { type: 'flat', source: 'estimate' },
      ],
    };
    const intel = intelligence({
      segments: [line],
      moments: [
        {
          id: 'm1',
          type: 'select',
          start: 30,
          end: 34,
          speaker: 'S1',
          score: 0.9,
          reason: 'Clean, complete sentence',
          segment_ids: [4],
          text: 'Hello there.',
        },
      ],
    });
    expect(AnalysisDocument.shape.intelligence.parse(intel)).toBeTruthy();
    expect(momentMarkers(intel, ctx)).toMatchObject([
      {
        lane: 'moments',
        kind: 'moment.select',
        start: 30,
        end: 34,
        segmentId: 4,
        detail: ['Ada, 30s – 34s', 'Clean, complete sentence', '“Hello there.”', 'Take quality 90%'],
      },
    ]);
    expect(deliveryMarkers(intel, ctx).map((m) => [m.kind, m.segmentId])).toEqual([
      ['delivery.rushed', 4],
      ['delivery.flat', 4],
    ]);
    expect(deliveryMarkers(intel, ctx)[0]!.detail).toEqual([
      'Line by Ada, 30s – 34s',
      'Rushed: 30% faster than usual.',
      'Delivery weak, score 30%',
      'Source: estimate (inferred by rules from other values)',
    ]);
  });
});

describe('moments and delivery on the timeline (listened document)', () => {
  it('each moment and label in its lane, at its time, in the legend with its own colour and shape', () => {
    const intel = listenedIntelligence();
    const markers = analysisMarkers(intel, ctx);
    const lanes = layoutLanes(markers, intel.duration);
    const moments = lanes.find((l) => l.lane === 'moments')!;
    expect(moments.placed.map((p) => [p.marker.kind, p.leftPct, p.widthPct])).toEqual([
      ['moment.trim', 2.5, expect.closeTo(3.5, 9)],
      ['moment.unusable', 20, 25],
      ['moment.select', 50, 40],
    ]);
    const delivery = lanes.find((l) => l.lane === 'delivery')!;
    expect(delivery.placed.map((p) => [p.marker.kind, p.marker.segmentId])).toEqual([
      ['delivery.hesitant', 0],
      ['delivery.long_pause', 0],
      ['delivery.rushed', 1],
      ['delivery.emphatic', 2],
    ]);
    // Two labels on one line take two rows.
    expect(delivery.rows).toBe(2);
    const legend = legendEntries(markers);
    const momentKinds = legend.find((l) => l.lane === 'moments')!.kinds;
    expect(momentKinds.map((k) => [k.kind, k.count])).toEqual([
      ['moment.select', 1],
      ['moment.trim', 1],
      ['moment.unusable', 1],
    ]);
    const styles = [...momentKinds, ...legend.find((l) => l.lane === 'delivery')!.kinds];
    expect(new Set(styles.map((k) => `${k.colour} ${k.shape}`)).size).toBe(styles.length);
    expect(styles.every((k) => !/_/.test(k.label))).toBe(true);
    // The moment's hover card says why, and the filter hides exactly its kind.
    expect(markers.find((m) => m.kind === 'moment.unusable')!.detail).toContain(
      'Clipping on 1.2% of the line.',
    );
    const hidden = visibleMarkers(markers, new Set(['moment.select']));
    expect(hidden.length).toBe(markers.length - 1);
  });
});
