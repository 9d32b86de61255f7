import { describe, expect, it } from 'vitest';
import type { AnalysisSegment, Moment } from '../../../shared/schemas/analysis';
import { contradictions, CONSISTENCY_RULES } from './consistency';
import { estimateLine } from './listener';
import { findMoments } from './moments';
import { BASELINE, evenWords, measuredLine } from './testing.testutil';
import { spoilers } from './verdict';

const listened = (s: AnalysisSegment, all: AnalysisSegment[] = [s]): AnalysisSegment => ({
  ...s,
  ...estimateLine({ segment: s, words: evenWords(12, s.start), baseline: BASELINE, speaker_hesitations_per_minute: 1, events: [], spoilers: spoilers(s, all, []) }),
});
const moment = (type: Moment['type'], s: AnalysisSegment, reason = 'Poor signal quality (score 0.23)'): Moment => ({
  id: `${type}-${s.id}`,
  type,
  start: s.start,
  end: s.end,
  speaker: s.speaker,
  score: 0.8,
  reason,
  segment_ids: [s.id],
});
const rulesBroken = (s: AnalysisSegment, moments: Moment[]) => contradictions([s], moments).map((c) => c.rule);

describe('consistency rules', () => {
  it('the reported case: an unusable line whose note says "usable as it is" breaks them', () => {
    const line = listened(measuredLine(0, 'S1', 0, 4));
    expect(line.perception!.note).toBe('Even delivery (0.62); usable as it is.');
    const poor = { ...line, quality: { ...line.quality, score: 0.23 } };
    expect(rulesBroken(poor, [moment('unusable', poor)])).toEqual(['unusable-note', 'recommendation', 'take-quality']);
  });

  it('each rule catches what it states', () => {
    const line = listened(measuredLine(0, 'S1', 0, 4));
    expect(rulesBroken(line, [])).toEqual([]);
    expect(rulesBroken({ ...line, perception: { ...line.perception!, note: 'Unusable: hum; use another take.' } }, [])).toEqual(['note-unusable-moment']);
    const clipped = { ...line, quality: { ...line.quality, issues: [{ type: 'clipping', severity: 0.55, evidence: 'e', source: 'measured' as const }] } };
    expect(rulesBroken(clipped, [moment('select', clipped)])).toEqual(expect.arrayContaining(['select-signal', 'recommendation', 'severe-issue-named', 'issues-listed']));
    const weak = { ...line, delivery: { ...line.delivery!, label: 'weak' as const } };
    expect(rulesBroken(weak, [moment('select', weak)])).toEqual(['select-delivery', 'recommendation']);
    const flags = { ...line, delivery: { ...line.delivery!, flags: [{ type: 'rushed', source: 'estimate' as const }] } };
    expect(rulesBroken(flags, [])).toEqual(['delivery-labels']);
    expect(CONSISTENCY_RULES.map((r) => r.id)).toEqual([
      'unusable-note',
      'note-unusable-moment',
      'select-signal',
      'select-delivery',
      'recommendation',
      'severe-issue-named',
      'issues-listed',
      'delivery-labels',
      'take-quality',
    ]);
  });

  it('lines listened to with their verdict and the moments found from it keep every rule', () => {
    const lines = [
      measuredLine(0, 'S1', 0, 4),
      measuredLine(1, 'S2', 3, 6), // over S1's last second and most of S3's line below
      measuredLine(2, 'S1', 7, 10, { quality: { ...measuredLine(0, 'S1', 0, 1).quality, score: 0.23 } }),
      measuredLine(3, 'S1', 11, 14, { quality: { ...measuredLine(0, 'S1', 0, 1).quality, score: 0.42 } }),
      measuredLine(4, 'S3', 4.5, 6.5),
    ];
    const segments = lines.map((s) => listened(s, lines));
    const words = new Map(segments.map((s) => [s.id, { words: evenWords(12, s.start), sentence_ends: [11] }]));
    const moments = findMoments(segments, words, []);
    expect(moments.filter((m) => m.type === 'unusable').map((m) => m.segment_ids[0])).toEqual([1, 4, 2]); // in time order
    expect(segments[2]!.perception!.note).toBe('Unusable: poor signal quality (score 0.23); use another take.');
    expect(segments[3]!.perception!.note).toBe('Poor signal (quality score 0.42); listen to it before using it.');
    expect(moments.filter((m) => m.type === 'select').map((m) => m.segment_ids[0])).toEqual([0]);
    expect(contradictions(segments, moments)).toEqual([]);
  });
});
