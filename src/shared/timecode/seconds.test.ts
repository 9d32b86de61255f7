import { describe, expect, it } from 'vitest';
import { formatTimecode, framesPerDay, type Timebase } from './label';
import { FRAME_RATES, supportsDropFrame } from './rates';
import {
  framesToSeconds,
  secondsToFrames,
  secondsToFramesCeil,
  secondsToTimecode,
  startFrames,
  timecodeToSeconds,
} from './seconds';

const TIMEBASES: Timebase[] = FRAME_RATES.flatMap((frameRate) =>
  supportsDropFrame(frameRate)
    ? [
        { frameRate, dropFrame: false },
        { frameRate, dropFrame: true },
      ]
    : [{ frameRate, dropFrame: false }],
);

describe('seconds ↔ frames', () => {
  it('floors an instant to the frame it falls in', () => {
    expect(secondsToFrames(0, '25')).toBe(0);
    expect(secondsToFrames(0.039, '25')).toBe(0);
    expect(secondsToFrames(0.04, '25')).toBe(1);
    expect(secondsToFrames(0.999, '25')).toBe(24);
    // 29.97: frame 30 starts at 30 × 1001/30000 = 1.001 s, so 1.0005 s is still in frame 29.
    expect(secondsToFrames(1.0005, '29.97')).toBe(29);
    expect(secondsToFrames(1.001, '29.97')).toBe(30);
    expect(secondsToFramesCeil(1.0005, '29.97')).toBe(30);
    expect(secondsToFramesCeil(1.001, '29.97')).toBe(30);
  });

  it('uses the exact rational rate (no drift over a day)', () => {
    expect(framesToSeconds(30000, '29.97')).toBe(1001);
    expect(framesToSeconds(24000, '23.976')).toBe(1001);
    expect(framesToSeconds(60000, '59.94')).toBe(1001);
    expect(secondsToFrames(86_400, '29.97')).toBe(2589410); // 86400 × 30000/1001 = 2589410.6
  });

  it.each(FRAME_RATES.map((r) => [r]))('%s: frames → seconds → frames round-trips over a day', (rate) => {
    const wrong: number[] = [];
    for (let n = 0; n < 6_000_000; n += 1237) {
      const start = framesToSeconds(n, rate);
      // The middle of a frame belongs to it, and its start is its own boundary both ways.
      const middle = framesToSeconds(n + 0.5, rate);
      if (secondsToFrames(start, rate) !== n || secondsToFramesCeil(start, rate) !== n) wrong.push(n);
      if (secondsToFrames(middle, rate) !== n || secondsToFramesCeil(middle, rate) !== n + 1) wrong.push(n);
    }
    expect(wrong).toEqual([]);
  });
});

describe('secondsToTimecode / timecodeToSeconds', () => {
  it('applies the start timecode', () => {
    const clock = { frameRate: '29.97' as const, dropFrame: true, startTimecode: '00:59:59;00' };
    expect(secondsToTimecode(0, clock)).toBe('00:59:59;00');
    // 30 frames later: 01:00:00;00 (a tenth minute, so nothing skipped).
    expect(secondsToTimecode(1.001, clock)).toBe('01:00:00;00');
    expect(timecodeToSeconds('01:00:00;00', clock)).toBeCloseTo(1.001, 12);
  });

  it('crosses a dropped minute boundary', () => {
    const clock = { frameRate: '29.97' as const, dropFrame: true, startTimecode: '00:00:59;28' };
    expect(secondsToTimecode(framesToSeconds(1, '29.97'), clock)).toBe('00:00:59;29');
    expect(secondsToTimecode(framesToSeconds(2, '29.97'), clock)).toBe('00:01:00;02');
    expect(timecodeToSeconds('00:01:00;02', clock)).toBe(framesToSeconds(2, '29.97'));
  });

  it('wraps at 24 hours', () => {
    const clock = { frameRate: '25' as const, dropFrame: false, startTimecode: '23:59:59:00' };
    expect(secondsToTimecode(0.96, clock)).toBe('23:59:59:24');
    expect(secondsToTimecode(1, clock)).toBe('00:00:00:00');
    expect(secondsToTimecode(62.5, clock)).toBe('00:01:01:12');
    // A label "before" the start is read as after midnight.
    expect(timecodeToSeconds('00:01:01:12', clock)).toBe(62.48);
    expect(timecodeToSeconds('23:59:59:00', clock)).toBe(0);
    const df = { frameRate: '59.94' as const, dropFrame: true, startTimecode: '23:59:59;00' };
    expect(secondsToTimecode(framesToSeconds(60, '59.94'), df)).toBe('00:00:00;00');
  });

  it('defaults to a start of 00:00:00:00', () => {
    expect(secondsToTimecode(3600, { frameRate: '25', dropFrame: false })).toBe('01:00:00:00');
    expect(secondsToTimecode(3600, { frameRate: '25', dropFrame: false, startTimecode: null })).toBe(
      '01:00:00:00',
    );
    // Drop frame tracks the wall clock: one real hour (107892.1 frames) is 01:00:00;00.
    expect(secondsToTimecode(3600, { frameRate: '29.97', dropFrame: true })).toBe('01:00:00;00');
    // Non-drop at 29.97 falls 3.6 s behind per hour.
    expect(secondsToTimecode(3600, { frameRate: '29.97', dropFrame: false })).toBe('00:59:56:12');
  });

  it('throws readable errors for invalid labels', () => {
    const clock = { frameRate: '29.97' as const, dropFrame: true, startTimecode: '00:01:00;00' };
    expect(() => startFrames(clock)).toThrow(/start timecode "00:01:00;00" does not exist/);
    expect(() => secondsToTimecode(0, clock)).toThrow(RangeError);
    expect(() => timecodeToSeconds('00:02:00;01', { ...clock, startTimecode: null })).toThrow(
      /does not exist/,
    );
  });

  it.each(TIMEBASES.map((tb) => [`${tb.frameRate}${tb.dropFrame ? ' DF' : ''}`, tb] as const))(
    '%s: label → seconds → label round-trips from an offset start',
    (_, tb) => {
      const start = formatTimecode(Math.floor(framesPerDay(tb) * 0.97), tb); // late in the day, so it wraps
      const clock = { ...tb, startTimecode: start };
      const wrong: string[] = [];
      for (let n = 0; n < framesPerDay(tb); n += 4999) {
        const label = formatTimecode(n, tb);
        const seconds = timecodeToSeconds(label, clock);
        // Any instant inside the frame names the same label.
        const late = seconds + framesToSeconds(0.99, tb.frameRate);
        if (
          seconds < 0 ||
          secondsToTimecode(seconds, clock) !== label ||
          secondsToTimecode(late, clock) !== label
        ) {
          wrong.push(label);
        }
      }
      expect(wrong).toEqual([]);
    },
  );
});
