/** Speaker profiles, moments and the summary on a constructed two-speaker conversation with known answers. */
import { describe, expect, it } from 'vitest';
import type { AnalysisSegment, AudienceEvent, Condition } from '../../../shared/schemas/analysis';
import { clock, clockRange } from './clock';
import { estimateLine } from './listener';
import { spoilers } from './verdict';
import { completeSpan, findMoments, type LineWords } from './moments';
import { speakerProfiles } from './profiles';
import { mergeRanges, writeSummary } from './summary';
import { BASELINE, evenWords, measuredLine, usualProsody } from './testing.testutil';

/**
 * Five lines: S1 0–4 s (complete sentence), S1 4.5–8 s (rushed, restarts "the the"), S2 9–12 s (clipped),
 * S1 13–17 s (1 s of dead air first, hesitant with two filled pauses), S2 18–21 s (laughter after it).
 */
function conversation() {
  const words = new Map<number, LineWords>();
  const segs: AnalysisSegment[] = [];
  const add = (seg: AnalysisSegment, w: LineWords) => {
    segs.push(seg);
    words.set(seg.id, w);
  };
  const sentence = (start: number, n: number, text?: string[]) => {
    const w = evenWords(n, start, text);
    return { words: w, sentence_ends: [n - 1] };
  };
  add(measuredLine(0, 'S1', 0, 4, { speech_start: 0.2, speech_end: 3.9, text: 'w0 w1 w2' }), sentence(0.2, 14));
  const restart = sentence(4.6, 12, ['so', 'the', 'the', 'house', 'was', 'old', 'and', 'cold', 'in', 'the', 'winter', 'months']);
  add(measuredLine(1, 'S1', 4.5, 8, { speech_start: 4.6, speech_end: 7.6, prosody: usualProsody({ pace_vs_speaker: 1.3 }) }), { ...restart, sentence_ends: [] });
  const clipped = measuredLine(2, 'S2', 9, 12, { speech_start: 9.1, speech_end: 11.9 });
  clipped.quality.issues = [{ type: 'clipping', severity: 0.8, evidence: 'clipping_ratio 1.2%', source: 'measured' }];
  add(clipped, sentence(9.1, 11));
  const hesitant = measuredLine(3, 'S1', 13, 17, { speech_start: 14, speech_end: 16.9 });
  hesitant.prosody = usualProsody({
    hesitations: 2,
    longest_pause: 0.6,
    pauses: [
      { start: 14.5, end: 15, duration: 0.5, after_word: 'w1', filled: true, sentence_end: false },
      { start: 15.5, end: 16.1, duration: 0.6, after_word: 'w3', filled: true, sentence_end: false },
    ],
  });
  add(hesitant, sentence(14, 8));
  add(measuredLine(4, 'S2', 18, 21, { speech_start: 18.1, speech_end: 20.9 }), sentence(18.1, 11));
  const events: AudienceEvent[] = [{ type: 'laughter', start: 21.2, end: 23, speaker: 'S2', during_speech: false, confidence: 0.9, sources: ['heard'] }];
  const listened = segs.map((s) => {
    const out = estimateLine({ segment: s, words: words.get(s.id)!.words, baseline: BASELINE, speaker_hesitations_per_minute: 1, events, spoilers: spoilers(s, segs, events) });
    return { ...s, ...out };
  });
  return { segments: listened, words, events };
}

describe('speaker profiles', () => {
  it('totals, turns, trajectory, distributions and reactions per speaker', () => {
    const { segments, events } = conversation();
    const profiles = speakerProfiles(segments, { S1: BASELINE, S2: { ...BASELINE, pitch_hz: 210 } }, events);
    const s1 = profiles.S1!;
    expect(s1.talk_seconds).toBeCloseTo(3.7 + 3 + 2.9, 6);
    expect(s1.turns).toBe(2); // lines 0–1, then line 3
    expect(s1.hesitations).toBe(2);
    expect(s1.trajectory.map((p) => [p.segment_id, p.t])).toEqual([
      [0, 2],
      [1, 6.25],
      [3, 15],
    ]);
    expect(s1.trajectory[1]).toMatchObject({ start: 4.5, end: 8, energy_db: -25, score: segments[1]!.delivery!.score });
    expect(s1.delivery_labels).toEqual({ rushed: 1, hesitant: 1 });
    expect(Object.values(s1.emotions).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 2);
    // 2 filled pauses over 9.6 s of speech
    expect(s1.fillers_per_minute).toBeCloseTo((2 / 9.6) * 60, 2);
    expect(s1).toMatchObject({ articulation_rate: 5, pitch_hz: 120, pitch_range_st: 8, reactions: {} });
    expect(profiles.S2).toMatchObject({ turns: 2, pitch_hz: 210, reactions: { laughter: 1 } });
    // Means weighted by speech seconds.
    const w = segments.filter((s) => s.speaker === 'S2');
    const mean = (w[0]!.perception!.valence * 2.8 + w[1]!.perception!.valence * 2.8) / 5.6;
    expect(profiles.S2!.valence).toBeCloseTo(mean, 2);
  });
});

describe('moments', () => {
  it('the span of complete sentences inside a line', () => {
    const words = evenWords(10);
    expect(completeSpan({ words, sentence_ends: [3, 9] }, false)).toEqual({ first: 4, last: 9 });
    expect(completeSpan({ words, sentence_ends: [9] }, true)).toEqual({ first: 0, last: 9 });
    expect(completeSpan({ words, sentence_ends: [] }, true)).toBeNull();
    expect(completeSpan({ words, sentence_ends: [9] }, false)).toBeNull();
  });

  it('select, unusable and trim moments with stable ids and reasons', () => {
    const { segments, words, events } = conversation();
    const moments = findMoments(segments, words, events);
    expect(moments.map((m) => m.id)).toEqual(['select-0', 'trim-1-restart-1', 'unusable-2', 'trim-3-lead', 'select-4']);
    const [select, restart, unusable, lead, select2] = moments;
    expect(select).toMatchObject({ type: 'select', speaker: 'S1', segment_ids: [0], sentence_complete: true, start: 0.15, end: 3.7 });
    expect(select!.text).toBe(words.get(0)!.words.map((w) => w.word).join(' '));
    expect(select!.reason).toMatch(/^Complete sentence: good delivery \(0\.62\), signal quality 0\.90$/);
    expect(restart).toMatchObject({ type: 'trim', start: 4.85, end: 5.1, segment_ids: [1] });
    expect(restart!.reason).toBe('False start: “the” is said again at 0:05; cut the first telling');
    expect(unusable).toMatchObject({ type: 'unusable', speaker: 'S2', score: 0.8, reason: 'Clipping (clipping_ratio 1.2%)' });
    expect(lead).toMatchObject({ type: 'trim', start: 13, end: 14, score: 0.5, reason: '1.0 s of dead air before the first word' });
    // S2's second line follows a clipped line of its own after a 6 s gap: a sentence start.
    expect(select2).toMatchObject({ type: 'select', speaker: 'S2', sentence_complete: true });
    // The rushed line (no sentence end) and the hesitant line are not selects.
    expect(moments.filter((m) => m.type === 'select').map((m) => m.segment_ids[0])).toEqual([0, 4]);
    // Deterministic.
    expect(findMoments(segments, words, events)).toEqual(moments);
  });

  it('repairable issues and a poor score on a single word do not make a line unusable', () => {
    const plosive = measuredLine(0, 'S1', 0, 4);
    plosive.quality.issues = [{ type: 'plosive', severity: 0.9, evidence: '3 pops', source: 'measured' }];
    const word = measuredLine(1, 'S1', 5, 5.6);
    word.quality.score = 0.1;
    const hum = measuredLine(2, 'S1', 6, 9);
    hum.quality.issues = [{ type: 'hum', severity: 0.6, evidence: '50 Hz', source: 'measured' }];
    const poor = measuredLine(3, 'S1', 10, 12);
    poor.quality.score = 0.2;
    expect(findMoments([plosive, word, hum, poor], new Map(), []).map((m) => [m.id, m.reason])).toEqual([
      ['unusable-2', 'Hum (50 Hz)'],
      ['unusable-3', 'Poor signal quality (score 0.20)'],
    ]);
  });

  it('overlapping speech and applause over the words make a line unusable', () => {
    const a = measuredLine(0, 'S1', 0, 4);
    const b = measuredLine(1, 'S2', 2, 6);
    const applause: AudienceEvent = { type: 'applause', start: 2, end: 6, speaker: 'S1', during_speech: true, confidence: 0.9, sources: ['heard'] };
    const moments = findMoments([a, b], new Map(), [applause]).filter((m) => m.type === 'unusable');
    expect(moments.map((m) => [m.id, m.reason])).toEqual([
      ['unusable-0', "Overlaps S2's speech for 2.0 s; applause over 50% of the words"],
      ['unusable-1', "Applause over 100% of the words; overlaps S1's speech for 2.0 s"],
    ]);
  });
});

describe('summary', () => {
  it('overview, speaker notes and watch-outs, each traceable to the document', () => {
    const { segments, words, events } = conversation();
    const profiles = speakerProfiles(segments, { S1: BASELINE, S2: BASELINE }, events);
    const moments = findMoments(segments, words, events);
    const conditions: Condition[] = [{ type: 'hum', severity: 0.7, evidence: '50 Hz', ranges: [{ start: 9, end: 12 }, { start: 12.3, end: 13 }], source: 'measured' }];
    const { summary, speakers } = writeSummary({ duration: 23, segments, speakers: profiles, moments, conditions, events });
    expect(summary.overview).toBe(
      '0:23 recording with 2 speakers over 5 lines; 0:15 of speech (66%). Delivery is good or great on 4 of 5 lines (1 hesitant, 0 weak). ' +
        'Recording conditions to check: hum. Audience: laughter 1. 2 selects, 1 unusable line and 2 trims suggested.',
    );
    expect(summary.speakers.map((s) => s.speaker)).toEqual(['S1', 'S2']);
    expect(speakers.S1).toBe(summary.speakers[0]!.summary);
    expect(speakers.S1).toMatch(/^S1 speaks for 0:09 in 2 turns, 5\.0 syllables\/s around 120 Hz with a 8\.0 st range\./);
    expect(speakers.S1).toContain('Delivery good or great on 2 of 3 lines; hesitant on 1, rushed on 1.');
    expect(speakers.S1).toContain('Best take 0:00–0:04: “w0 w1 w2 w3 w4 w5 w6 w7 w8 w9 w10 w11…”.');
    expect(summary.watch_out_items.map((w) => [w.kind, w.ranges])).toEqual([
      ['hum', [{ start: 9, end: 13 }]],
      ['unusable', [{ start: 9, end: 12 }]],
      ['hesitant', [{ start: 13, end: 17 }]],
      ['rushed', [{ start: 4.5, end: 8 }]],
      ['trim', [{ start: 4.85, end: 5.1 }, { start: 13, end: 14 }]],
    ]);
    expect(summary.watch_outs).toEqual(summary.watch_out_items.map((w) => w.text));
    expect(summary.watch_outs[0]).toBe('Hum (severity 0.70): 0:09–0:13.');
    expect(summary.watch_outs[2]).toBe('Hesitant delivery (1 line): 0:13–0:17.');
    // Each kind written once (label), how much (detail), and ranges as they are: a 0.25 s false start in tenths.
    expect(summary.watch_out_items.map((w) => [w.label, w.detail])).toEqual([
      ['Hum', 'severity 0.70'],
      ['Unusable line', '1'],
      ['Hesitant delivery', '1 line'],
      ['Rushed delivery', '1 line'],
      ['Dead air or false starts to trim', '2'],
    ]);
    expect(summary.watch_outs[4]).toBe('Dead air or false starts to trim (2): 0:04.8–0:05.1, 0:13.0–0:14.0.');
    for (const w of summary.watch_out_items) {
      expect(w.text.startsWith(`${w.label} (${w.detail}): `)).toBe(true);
      expect(w.text.split(w.label!)).toHaveLength(2); // the label once
    }
    expect(writeSummary({ duration: 23, segments, speakers: profiles, moments, conditions, events })).toEqual({ summary, speakers });
  });

  it('minor conditions are named in the overview only; speakers come in natural order', () => {
    const { segments, words } = conversation();
    const renamed = segments.map((s) => ({ ...s, speaker: s.speaker === 'S2' ? 'S10' : s.speaker === 'S1' ? 'S2' : s.speaker }));
    const profiles = speakerProfiles(renamed, {}, []);
    const moments = findMoments(renamed, words, []);
    const conditions: Condition[] = [{ type: 'clipping', severity: 0.05, evidence: '3 samples', ranges: [{ start: 1, end: 1.1 }], source: 'measured' }];
    const { summary } = writeSummary({ duration: 23, segments: renamed, speakers: profiles, moments, conditions, events: [] });
    expect(summary.overview).toContain('No recording condition stands out (minor: clipping).');
    expect(summary.watch_out_items.map((w) => w.kind)).not.toContain('clipping');
    expect(summary.speakers.map((s) => s.speaker)).toEqual(['S2', 'S10']);
  });

  it('merges ranges closer than half a second and formats clock times', () => {
    expect(mergeRanges([{ start: 5, end: 6 }, { start: 1, end: 2 }, { start: 2.4, end: 3 }])).toEqual([
      { start: 1, end: 3 },
      { start: 5, end: 6 },
    ]);
    expect(clock(3725.9)).toBe('1:02:05');
    expect(clockRange({ start: 61, end: 75.2 })).toBe('1:01–1:16');
  });
});

describe('watch-outs on short and point ranges', () => {
  it('a condition over half a second and one at a point: the kind once, the ranges as they are', () => {
    const { segments, words } = conversation();
    const profiles = speakerProfiles(segments, {}, []);
    const moments = findMoments(segments, words, []);
    const conditions: Condition[] = [
      { type: 'reverb', severity: 0.56, evidence: 'decay', ranges: [{ start: 27.12, end: 27.61 }], source: 'measured' },
      { type: 'clipping', severity: 0.4, evidence: '3 samples', ranges: [{ start: 3.5, end: 3.5 }, { start: 70.2, end: 73.9 }], source: 'measured' },
    ];
    const { summary } = writeSummary({ duration: 80, segments, speakers: profiles, moments, conditions, events: [] });
    expect(summary.watch_outs[0]).toBe('Reverb (severity 0.56): 0:27.1–0:27.7.');
    expect(summary.watch_outs[1]).toBe('Clipping (severity 0.40): 0:03.5, 1:10–1:14.');
    expect(summary.watch_out_items[0]).toMatchObject({ kind: 'reverb', label: 'Reverb', detail: 'severity 0.56', ranges: [{ start: 27.12, end: 27.61 }] });
  });
});
