import { describe, expect, it } from 'vitest';
import {
  formatLength,
  formatClock,
  formatReadout,
  formatRulerLabel,
  rulerSteps,
  secondsToTimecode,
  stepFrames,
  timebaseFromMedia,
} from './timecode';

describe('secondsToTimecode', () => {
  it('offsets by the start timecode', () => {
    const tb = { frameRate: '29.97' as const, dropFrame: true, startTimecode: '01:00:00;00' };
    expect(secondsToTimecode(0, tb)).toBe('01:00:00;00');
    expect(secondsToTimecode(60, tb)).toBe('01:00:59;28');
    expect(secondsToTimecode(600, tb)).toBe('01:10:00;00');
  });

  it('counts from 00:00:00:00 without a start timecode', () => {
    expect(secondsToTimecode(1.5, { frameRate: '25', dropFrame: false, startTimecode: null })).toBe(
      '00:00:01:12',
    );
  });
});

describe('readout and ruler', () => {
  it('shows clock time when the recording has no timebase', () => {
    expect(formatReadout(3723.4567, null)).toBe('01:02:03.457');
    expect(formatClock(0)).toBe('00:00:00.000');
    expect(formatRulerLabel(65, null, 5)).toBe('1:05');
    expect(formatRulerLabel(65.5, null, 0.5)).toBe('1:05.5');
    expect(formatRulerLabel(3725, null, 60)).toBe('1:02:05');
  });

  it('shows timecode labels on the ruler with a timebase', () => {
    const tb = { frameRate: '25' as const, dropFrame: false, startTimecode: '10:00:00:00' };
    expect(formatRulerLabel(2, tb, 1)).toBe('10:00:02:00');
  });

  it('spaces labels wider as the view zooms out', () => {
    expect(rulerSteps(100, null).label).toBe(1);
    expect(rulerSteps(1, null).label).toBe(120);
    expect(rulerSteps(0.05, null).label).toBe(1800);
    expect(rulerSteps(0.02, null).label).toBe(3600);
    const fine = rulerSteps(1000, { frameRate: '25', dropFrame: false, startTimecode: null });
    expect(fine.label).toBeCloseTo(0.2, 9);
  });
});

describe('stepFrames', () => {
  it('moves one frame of the timebase and lands on frame starts', () => {
    const tb = { frameRate: '29.97' as const, dropFrame: true, startTimecode: null };
    const once = stepFrames(0, 1, tb, 10);
    expect(once).toBeCloseTo(1001 / 30000, 12);
    expect(stepFrames(once, 1, tb, 10)).toBeCloseTo(2002 / 30000, 12);
    expect(stepFrames(0.05, -1, tb, 10)).toBeCloseTo(0, 12);
  });

  it('uses 25 fps without a timebase and clamps to the recording', () => {
    expect(stepFrames(1, 1, null, 10)).toBeCloseTo(1.04, 12);
    expect(stepFrames(0, -1, null, 10)).toBe(0);
    expect(stepFrames(9.99, 5, null, 10)).toBe(10);
  });
});

describe('timebaseFromMedia', () => {
  it('reads the API media object', () => {
    expect(timebaseFromMedia(null)).toBeNull();
    expect(timebaseFromMedia({ frame_rate: '59.94', drop_frame: true, start_timecode: null })).toEqual({
      frameRate: '59.94',
      dropFrame: true,
      startTimecode: null,
    });
  });
});

describe('formatLength', () => {
  it('counts a length from zero on the timebase, not from the start timecode', () => {
    const tb = { frameRate: '29.97' as const, dropFrame: true, startTimecode: '01:00:00;00' };
    expect(formatLength(429.7, tb)).toBe('00:07:09;22');
    expect(formatReadout(429.7, tb)).toBe('01:07:09;22');
    expect(formatLength(429.7, null)).toBe('00:07:09.700');
  });
});
