import Timecode from 'smpte-timecode';
import { describe, expect, it } from 'vitest';
import { formatTimecode, framesPerDay, parseTimecode, type Timebase } from './label';
import { FRAME_RATES, nominalRate, rationalRate, supportsDropFrame } from './rates';

const TIMEBASES: Timebase[] = FRAME_RATES.flatMap((frameRate) =>
  supportsDropFrame(frameRate)
    ? [
        { frameRate, dropFrame: false },
        { frameRate, dropFrame: true },
      ]
    : [{ frameRate, dropFrame: false }],
);

function name(tb: Timebase): string {
  return `${tb.frameRate}${tb.dropFrame ? ' DF' : ' NDF'}`;
}

function parsed(label: string, tb: Timebase): number {
  const r = parseTimecode(label, tb);
  if (!r.ok) throw new Error(r.reason);
  return r.frames;
}

describe('against smpte-timecode, every frame of the first hour', () => {
  it.each(TIMEBASES.map((tb) => [name(tb), tb] as const))('%s', (_, tb) => {
    const { num, den } = rationalRate(tb.frameRate);
    const hour = (num * 3600) / den;
    // Frames in the hour: nominal×3600 without drop frame; drop frame skips 2 (4) labels in 54 minutes.
    const framesInHour = tb.dropFrame
      ? nominalRate(tb.frameRate) * (3600 - 54 / 15)
      : nominalRate(tb.frameRate) * 3600;
    expect(framesInHour).toBe(tb.dropFrame ? Math.round(hour) : nominalRate(tb.frameRate) * 3600);
    let mismatches = 0;
    let first = '';
    for (let n = 0; n <= framesInHour; n++) {
      const reference = Timecode(n, [num, den], tb.dropFrame);
      const label = formatTimecode(n, tb);
      const expected = reference.toString();
      const back = parseTimecode(expected, tb);
      // Equal labels both ways: the reference's parse of its own labels is its business, not ours.
      if (label !== expected || !back.ok || back.frames !== n) {
        mismatches++;
        first ||= `frame ${n}: ours ${label}, reference ${expected}, parsed ${JSON.stringify(back)}`;
      }
    }
    expect(first).toBe('');
    expect(mismatches).toBe(0);
    expect(formatTimecode(framesInHour, tb)).toBe(tb.dropFrame ? '01:00:00;00' : '01:00:00:00');
  });
});

describe('against smpte-timecode, sampled over the whole day', () => {
  it.each(TIMEBASES.map((tb) => [name(tb), tb] as const))('%s', (_, tb) => {
    const { num, den } = rationalRate(tb.frameRate);
    const day = framesPerDay(tb);
    const samples: number[] = [];
    for (let n = 0; n < day; n += 997) samples.push(n);
    samples.push(day - 1);
    for (const n of samples) {
      const expected = Timecode(n, [num, den], tb.dropFrame).toString();
      expect(formatTimecode(n, tb), `frame ${n}`).toBe(expected);
      expect(parsed(expected, tb), expected).toBe(n);
    }
  });
});

describe('against smpte-timecode, which labels exist in drop frame', () => {
  it.each([['29.97'], ['59.94']] as const)('%s: every HH:MM:SS;FF of the first hour', (frameRate) => {
    const tb: Timebase = { frameRate, dropFrame: true };
    const { num, den } = rationalRate(frameRate);
    const nominal = nominalRate(frameRate);
    let refused = 0;
    const disagreements: string[] = [];
    for (let m = 0; m < 60; m++)
      for (let s = 0; s < 60; s++)
        for (let f = 0; f < nominal; f++) {
          const label = `00:${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')};${String(f).padStart(2, '0')}`;
          let referenceOk = true;
          try {
            Timecode(label, [num, den], true);
          } catch {
            referenceOk = false;
          }
          const ours = parseTimecode(label, tb).ok;
          if (!ours) refused++;
          if (ours !== referenceOk && disagreements.length < 5) disagreements.push(label);
        }
    expect(disagreements).toEqual([]);
    // 54 non-tenth minutes × (2 or 4) skipped labels.
    expect(refused).toBe(54 * (nominal / 15));
  });
});

describe('known labels (hand-computed)', () => {
  const df2997: Timebase = { frameRate: '29.97', dropFrame: true };
  const df5994: Timebase = { frameRate: '59.94', dropFrame: true };
  it('29.97 drop frame skips ;00 and ;01 in non-tenth minutes', () => {
    expect(formatTimecode(1799, df2997)).toBe('00:00:59;29');
    expect(formatTimecode(1800, df2997)).toBe('00:01:00;02');
    expect(formatTimecode(17981, df2997)).toBe('00:09:59;29');
    expect(formatTimecode(17982, df2997)).toBe('00:10:00;00');
    expect(formatTimecode(17983, df2997)).toBe('00:10:00;01');
    expect(formatTimecode(107892, df2997)).toBe('01:00:00;00');
    expect(framesPerDay(df2997)).toBe(2589408);
  });
  it('59.94 drop frame skips ;00 to ;03 in non-tenth minutes', () => {
    expect(formatTimecode(3599, df5994)).toBe('00:00:59;59');
    expect(formatTimecode(3600, df5994)).toBe('00:01:00;04');
    expect(formatTimecode(35964, df5994)).toBe('00:10:00;00');
    expect(formatTimecode(215784, df5994)).toBe('01:00:00;00');
    expect(framesPerDay(df5994)).toBe(5178816);
  });
  it('non-drop rates count nominal frames per second', () => {
    expect(formatTimecode(86_400, { frameRate: '23.976', dropFrame: false })).toBe('01:00:00:00');
    expect(formatTimecode(25 * 3661 + 24, { frameRate: '25', dropFrame: false })).toBe('01:01:01:24');
    expect(formatTimecode(59, { frameRate: '60', dropFrame: false })).toBe('00:00:00:59');
    expect(framesPerDay({ frameRate: '29.97', dropFrame: false })).toBe(2592000);
  });
  it('wraps at 24 hours in both directions', () => {
    expect(formatTimecode(framesPerDay(df2997), df2997)).toBe('00:00:00;00');
    expect(formatTimecode(framesPerDay(df2997) + 1800, df2997)).toBe('00:01:00;02');
    expect(formatTimecode(-1, df2997)).toBe('23:59:59;29');
    expect(formatTimecode(-1, { frameRate: '25', dropFrame: false })).toBe('23:59:59:24');
  });
  it('refuses fractional frame counts and drop frame where it does not exist', () => {
    expect(() => formatTimecode(1.5, df2997)).toThrow(RangeError);
    expect(() => formatTimecode(0, { frameRate: '25', dropFrame: true })).toThrow(/29\.97 and 59\.94/);
  });
});

describe('parseTimecode refuses invalid labels with a reason', () => {
  const cases: Array<[string, Timebase, RegExp]> = [
    ['00:01:00;00', { frameRate: '29.97', dropFrame: true }, /does not exist.*next label is 00:01:00;02/],
    ['00:01:00;01', { frameRate: '29.97', dropFrame: true }, /frames 00, 01 are skipped/],
    [
      '01:59:00;03',
      { frameRate: '59.94', dropFrame: true },
      /frames 00, 01, 02, 03 are skipped.*01:59:00;04/,
    ],
    ['24:00:00:00', { frameRate: '25', dropFrame: false }, /hours must be 00 to 23/],
    ['00:60:00:00', { frameRate: '25', dropFrame: false }, /minutes must be 00 to 59/],
    ['00:00:60:00', { frameRate: '25', dropFrame: false }, /seconds must be 00 to 59/],
    ['00:00:00:25', { frameRate: '25', dropFrame: false }, /frames must be 00 to 24 at 25 fps/],
    ['00:00:00:24', { frameRate: '23.976', dropFrame: false }, /frames must be 00 to 23 at 23\.976 fps/],
    ['00:00:00;30', { frameRate: '29.97', dropFrame: true }, /frames must be 00 to 29/],
    [
      '01:00:00:00',
      { frameRate: '29.97', dropFrame: true },
      /drop-frame timecode separates the frames with ';'/,
    ],
    [
      '01:00:00;00',
      { frameRate: '29.97', dropFrame: false },
      /non-drop timecode separates the frames with ':'/,
    ],
    ['01:00:00;00', { frameRate: '25', dropFrame: true }, /only at 29\.97 and 59\.94 fps, not at 25 fps/],
    ['01:00:00;00', { frameRate: '23.976', dropFrame: true }, /only at 29\.97 and 59\.94/],
    ['1:00:00:00', { frameRate: '25', dropFrame: false }, /not a timecode: expected HH:MM:SS:FF/],
    ['01:00:00', { frameRate: '25', dropFrame: false }, /not a timecode/],
    [' 01:00:00:00', { frameRate: '25', dropFrame: false }, /not a timecode/],
    ['01:00:00.00', { frameRate: '25', dropFrame: false }, /not a timecode/],
    ['', { frameRate: '29.97', dropFrame: true }, /expected HH:MM:SS;FF .*01:00:00;00/],
    ['01:00:00:00:00', { frameRate: '25', dropFrame: false }, /not a timecode/],
    ['٠١:00:00:00', { frameRate: '25', dropFrame: false }, /not a timecode/],
  ];
  it.each(cases)('%s at %o', (label, tb, reason) => {
    const r = parseTimecode(label, tb);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(reason);
  });

  it('accepts the labels either side of a dropped pair and every tenth minute', () => {
    const tb: Timebase = { frameRate: '29.97', dropFrame: true };
    expect(parsed('00:00:59;29', tb) + 1).toBe(parsed('00:01:00;02', tb));
    expect(parsed('00:10:00;00', tb)).toBe(17982);
    expect(parsed('23:59:59;29', tb)).toBe(framesPerDay(tb) - 1);
    expect(parsed('00:00:00;00', tb)).toBe(0);
  });
});
