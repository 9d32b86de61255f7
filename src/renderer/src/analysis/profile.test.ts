import { describe, expect, it } from 'vitest';
import { AnalysisSummary, Intelligence, SpeakerProfile } from '../../../shared/schemas/analysis';
import { countsText, profileRows, rangeText, sharesText, talkTime, watchOutRows } from './profile';
import { listenedIntelligence } from './testing/listened';

describe('speaker profile rows', () => {
  it('lists the profile numbers with their units', () => {
    const profile = SpeakerProfile.parse(listenedIntelligence().speakers.S1);
    const rows = Object.fromEntries(profileRows(profile).map((r) => [r.key, r.text]));
    expect(rows).toEqual({
      talk_seconds: '0:10',
      turns: '2',
      hesitations: '1',
      fillers_per_minute: '1.5 /min',
      articulation_rate: '4.80 syll/s',
      pitch_hz: '118 Hz',
      pitch_range_st: '7.8 st',
      confidence: '0.72',
      engagement: '0.64',
      valence: '0.18',
      arousal: '0.41',
    });
    expect(profileRows({ ...profile, pitch_hz: null }).find((r) => r.key === 'pitch_hz')!.text).toBe('—');
  });

  it('writes times, shares and counts', () => {
    expect(talkTime(754.4)).toBe('12:34');
    expect(talkTime(3725)).toBe('1:02:05');
    expect(sharesText({ neutral: 0.3, calm: 0.62, excited: 0.08, sad: 0.001 })).toBe(
      'calm 62%, neutral 30%, excited 8%',
    );
    expect(sharesText({})).toBe('—');
    expect(countsText({ rushed: 1, trailing_off: 3, flat: 0 })).toBe('trailing off 3, rushed 1');
    expect(countsText({})).toBe('none');
  });
});

describe('watch-outs', () => {
  it('takes the structured items, ranges in time order', () => {
    const summary = AnalysisSummary.parse(listenedIntelligence().summary);
    expect(watchOutRows(summary)).toEqual([
      {
        kind: 'clipping',
        text: 'Clipping at 0:04–0:09: re-record or restore S2’s line.',
        ranges: [{ start: 4, end: 9 }],
      },
      {
        kind: 'hesitant',
        text: 'S1 hesitates at 0:00–0:03 and 0:10–0:18.',
        ranges: [
          { start: 0.5, end: 3.5 },
          { start: 10, end: 18 },
        ],
      },
    ]);
  });

  it('keeps the label and detail, so the view writes the kind once', () => {
    const summary = AnalysisSummary.parse({
      overview: '',
      speakers: [],
      watch_outs: ['Reverb (severity 0.56): 0:27.1–0:27.7.'],
      watch_out_items: [{ kind: 'reverb', text: 'Reverb (severity 0.56): 0:27.1–0:27.7.', label: 'Reverb', detail: 'severity 0.56', ranges: [{ start: 27.1, end: 27.7 }] }],
    });
    expect(watchOutRows(summary)).toEqual([
      { kind: 'reverb', text: 'Reverb (severity 0.56): 0:27.1–0:27.7.', label: 'Reverb', detail: 'severity 0.56', ranges: [{ start: 27.1, end: 27.7 }] },
    ]);
  });

  it('writes a range as it is: start–end, one time for a point, the length when both read the same', () => {
    const mss = (t: number) => `${Math.floor(t / 60)}:${String(Math.floor(t % 60)).padStart(2, '0')}`;
    expect(rangeText(mss, { start: 4, end: 9 })).toBe('0:04–0:09');
    expect(rangeText(mss, { start: 27, end: 27 })).toBe('0:27');
    expect(rangeText(mss, { start: 27.1, end: 27.7 })).toBe('0:27 (0.6 s)');
  });

  it('keeps the sentences when there are no items', () => {
    expect(
      watchOutRows({ overview: '', speakers: [], watch_outs: ['Hum throughout.'], watch_out_items: [] }),
    ).toEqual([{ kind: '', text: 'Hum throughout.', ranges: [] }]);
  });
});

describe('the listened test document', () => {
  it('is a valid Intelligence document', () => {
    expect(() => Intelligence.parse(listenedIntelligence())).not.toThrow();
  });
});
