import { describe, expect, it } from 'vitest';
import {
  diarizationError,
  formatRttm,
  parseRttm,
  parseUem,
  totalDiarizationError,
  type LabeledTurn,
} from './der';

const t = (speaker: string, start: number, end: number): LabeledTurn => ({ speaker, start, end });

describe('parseRttm / parseUem', () => {
  it('reads SPEAKER lines and UEM spans', () => {
    const turns = parseRttm(
      'SPEAKER trn01 1 2.977 0.391 <NA> <NA> FEO066 <NA> <NA>\n;; comment\nSPEAKER trn01 1 28.474 1.526 <NA> <NA> MÉO069 <NA> <NA>\n',
    );
    expect(turns).toHaveLength(2);
    expect(turns[0]).toEqual({ file: 'trn01', start: 2.977, end: 2.977 + 0.391, speaker: 'FEO066' });
    expect(turns[1]!.speaker).toBe('MÉO069');
    expect(parseUem('trn01 NA 0.000 30.000\n')).toEqual([{ file: 'trn01', start: 0, end: 30 }]);
  });

  it('round-trips through formatRttm', () => {
    const back = parseRttm(formatRttm('f', [t('S1', 1, 2.5)]));
    expect(back[0]!.start).toBeCloseTo(1, 6);
    expect(back[0]!.end).toBeCloseTo(2.5, 6);
  });
});

describe('diarizationError', () => {
  it('is zero for a perfect hypothesis whatever its labels', () => {
    const ref = [t('A', 0, 5), t('B', 5, 9), t('A', 9, 12)];
    const hyp = [t('S2', 0, 5), t('S1', 5, 9), t('S2', 9, 12)];
    const r = diarizationError(ref, hyp, { uem: [{ start: 0, end: 12 }] });
    expect(r.der).toBe(0);
    expect(r.mapping).toEqual({ S2: 'A', S1: 'B' });
  });

  it('counts one speaker for two as confusion', () => {
    const r = diarizationError([t('A', 0, 10), t('B', 10, 20)], [t('X', 0, 20)], { collar: 0 });
    expect(r.reference).toBeCloseTo(20, 9);
    expect(r.confusion).toBeCloseTo(10, 9);
    expect(r.missed + r.falseAlarm).toBeCloseTo(0, 9);
    expect(r.der).toBeCloseTo(0.5, 9);
  });

  it('counts missed speech and false alarms', () => {
    const r = diarizationError([t('A', 0, 10)], [t('X', 5, 15)], { collar: 0, uem: [{ start: 0, end: 20 }] });
    expect(r.missed).toBeCloseTo(5, 9);
    expect(r.falseAlarm).toBeCloseTo(5, 9);
    expect(r.confusion).toBeCloseTo(0, 9);
    expect(r.der).toBeCloseTo(1, 9);
  });

  it('ignores ±collar around every reference boundary', () => {
    const uem = [{ start: 0, end: 20 }];
    const slight = diarizationError([t('A', 0, 10)], [t('X', 0, 10.2)], { uem });
    expect(slight.der).toBe(0);
    expect(slight.reference).toBeCloseTo(9.5, 9);
    const late = diarizationError([t('A', 0, 10)], [t('X', 0, 11)], { uem });
    expect(late.falseAlarm).toBeCloseTo(0.75, 9);
    expect(late.der).toBeCloseTo(0.75 / 9.5, 9);
  });

  it('scores overlapped speech: a single hypothesis speaker misses the second voice', () => {
    const r = diarizationError([t('A', 0, 10), t('B', 5, 10)], [t('X', 0, 10)], { collar: 0 });
    expect(r.reference).toBeCloseTo(15, 9);
    expect(r.missed).toBeCloseTo(5, 9);
    expect(r.confusion).toBeCloseTo(0, 9);
    expect(r.der).toBeCloseTo(1 / 3, 9);
  });

  it('uses the optimal speaker map, not the greedy one', () => {
    // Co-occurrence A–X 6, A–Y 5, B–X 5, B–Y 0: greedy takes A–X (6 correct), optimal A–Y + B–X (10).
    const ref = [t('A', 0, 11), t('B', 11, 16)];
    const hyp = [t('X', 0, 6), t('Y', 6, 11), t('X', 11, 16)];
    const r = diarizationError(ref, hyp, { collar: 0 });
    expect(r.confusion).toBeCloseTo(6, 9);
    expect(r.mapping).toEqual({ Y: 'A', X: 'B' });
  });

  it('defaults the scored region to the reference extent', () => {
    const r = diarizationError([t('A', 5, 10)], [t('X', 0, 10)], { collar: 0 });
    expect(r.falseAlarm).toBe(0);
    expect(r.der).toBe(0);
    const withUem = diarizationError([t('A', 5, 10)], [t('X', 0, 10)], {
      collar: 0,
      uem: [{ start: 0, end: 10 }],
    });
    expect(withUem.falseAlarm).toBeCloseTo(5, 9);
  });

  it('counts a speaker once when its own turns overlap', () => {
    const r = diarizationError([t('A', 0, 6), t('A', 4, 10)], [t('X', 0, 10)], { collar: 0 });
    expect(r.reference).toBeCloseTo(10, 9);
    expect(r.der).toBe(0);
  });
});

describe('totalDiarizationError', () => {
  it('divides summed errors by summed reference speech', () => {
    const a = diarizationError([t('A', 0, 10)], [t('X', 0, 5)], { collar: 0 }); // 5 missed of 10
    const b = diarizationError([t('A', 0, 30)], [t('X', 0, 30)], { collar: 0 }); // perfect, 30
    const total = totalDiarizationError([a, b]);
    expect(total.missed).toBeCloseTo(5, 9);
    expect(total.der).toBeCloseTo(5 / 40, 9);
  });
});
