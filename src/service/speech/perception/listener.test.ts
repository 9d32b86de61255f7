import { describe, expect, it } from 'vitest';
import type { AudienceEvent } from '../../../shared/schemas/analysis';
import { createEstimateListener, estimateLine, reactionsTo } from './listener';
import { spoilers, type Spoiler } from './verdict';
import { BASELINE, evenWords, measuredLine, usualProsody } from './testing.testutil';

const event = (type: AudienceEvent['type'], start: number, end: number): AudienceEvent => ({ type, start, end, speaker: 'S1', during_speech: false, confidence: 0.8, sources: ['heard'] });

describe('reactions', () => {
  it('events over the line or starting within 2 s after it; music is no reaction', () => {
    const line = { start: 10, end: 14 };
    expect(reactionsTo(line, [event('laughter', 15.9, 17), event('applause', 12, 13), event('laughter', 13, 14)])).toEqual(['laughter', 'applause']);
    expect(reactionsTo(line, [event('applause', 16.1, 18), event('laughter', 5, 9.9), event('music', 11, 12)])).toEqual([]);
  });
});

describe('the built-in listener', () => {
  const input = (over: Parameters<typeof measuredLine>[4] = {}) => ({
    segment: measuredLine(3, 'S1', 10, 13, over),
    words: evenWords(12, 10),
    baseline: BASELINE,
    speaker_hesitations_per_minute: 1,
    events: [] as AudienceEvent[],
    spoilers: [] as Spoiler[],
  });

  it('an even line: neutral, good, every value an estimate with the line’s span', () => {
    const { perception, delivery, emphasis } = estimateLine(input());
    expect(perception).toMatchObject({ emotion: 'neutral', delivery: [], reactions: [], emphasis: [], audio_issues: [], start: 10, end: 13, source: 'estimate' });
    expect(perception.note).toBe('Even delivery (0.62); usable as it is.');
    expect(perception.take_quality).toBe(0.75); // √(0.62 · 0.9) = 0.747
    expect(delivery).toEqual({ score: 0.62, label: 'good', flags: [] });
    expect(emphasis).toEqual([]);
  });

  it('a rushed line with clipping: labels, flags, issues and a note led by the issue', () => {
    const segment = measuredLine(3, 'S1', 10, 13, { prosody: usualProsody({ pace_vs_speaker: 1.35 }) });
    segment.quality.issues = [{ type: 'clipping', severity: 0.55, evidence: 'clipping_ratio 0.4% (> 0.1%)', source: 'measured' }];
    const { perception, delivery } = estimateLine({ ...input(), segment, spoilers: spoilers(segment, [segment], []) });
    expect(perception.delivery).toEqual(['rushed']);
    expect(perception.audio_issues).toEqual(['clipping']);
    expect(perception.note).toBe('Clipping (clipping_ratio 0.4% (> 0.1%)); repair it or use another take.');
    expect(delivery.flags).toEqual([{ type: 'rushed', source: 'estimate' }]);
  });

  it('a line the verdict finds unusable says so in its note, whatever its delivery', () => {
    // Severe clipping spoils the take; the line's delivery alone would read "usable as it is".
    const segment = measuredLine(3, 'S1', 10, 13);
    segment.quality.issues = [{ type: 'clipping', severity: 0.8, evidence: 'clipping_ratio 1.2% (> 0.1%)', source: 'measured' }];
    expect(estimateLine({ ...input(), segment }).perception.note).toBe("Clipping (clipping_ratio 1.2% (> 0.1%)); repair it or use another take.");
    const { perception, delivery } = estimateLine({ ...input(), segment, spoilers: spoilers(segment, [segment], []) });
    expect(delivery.label).toBe('good');
    expect(perception.note).toBe('Unusable: clipping (clipping_ratio 1.2% (> 0.1%)); use another take.');
    // A poor quality score on a second of speech or more, the case an editor reported.
    const poor = measuredLine(4, 'S1', 10, 13, { quality: { ...measuredLine(0, 'S1', 0, 1).quality, score: 0.23 } });
    expect(estimateLine({ ...input(), segment: poor, spoilers: spoilers(poor, [poor], []) }).perception.note).toBe('Unusable: poor signal quality (score 0.23); use another take.');
  });

  it('the listener says it did not listen', async () => {
    const listener = createEstimateListener();
    expect(listener.heard).toBe(false);
    const out = await listener.listen({ ...input(), audio: new Float32Array(0) });
    expect(out.perception.source).toBe('estimate');
    expect(out.emphasis.every((e) => e.source === 'estimate')).toBe(true);
  });
});
