import { describe, expect, it } from 'vitest';
import {
  formatClock,
  formatReadout,
  formatRulerLabel,
  framesToLabel,
  framesToSeconds,
  labelToFrames,
  rulerSteps,
  secondsToFrames,
  secondsToTimecode,
  stepFrames,
  timebaseFromMedia,
  FRAME_RATES,
} from './timecode';
import {
  formatTimecode as serviceFormat,
  parseTimecode as serviceParse,
} from '../../../service/timecode/label';
import { secondsToTimecode as serviceSecondsToTimecode } from '../../../service/timecode/seconds';

describe('secondsToFrames', () => {
  it('uses the exact NTSC rationals, not 29.97', () => {
    // One hour of 30000/1001 is 107892.1 frames; 29.97 * 3600 would be 107892 exactly.
    expect(secondsToFrames(3600, '29.97')).toBe(107892);
    expect(secondsToFrames((1001 / 30000) * 3, '29.97')).toBe(3);
    expect(secondsToFrames(1, '23.976')).toBe(23);
    expect(secondsToFrames(1, '25')).toBe(25);
    expect(framesToSeconds(24000, '23.976')).toBeCloseTo(1001, 9);
  });
});

describe('drop-frame labels', () => {
  it('skips frames 00 and 01 at each minute except every tenth at 29.97', () => {
    expect(framesToLabel(1799, '29.97', true)).toBe('00:00:59;29');
    expect(framesToLabel(1800, '29.97', true)).toBe('00:01:00;02');
    expect(framesToLabel(17982, '29.97', true)).toBe('00:10:00;00');
    expect(framesToLabel(107892, '29.97', true)).toBe('01:00:00;00');
    expect(labelToFrames('00:01:00;00', '29.97', true)).toBeNull();
    expect(labelToFrames('00:01:00;02', '29.97', true)).toBe(1800);
  });

  it('skips four frames per minute at 59.94', () => {
    expect(framesToLabel(3600, '59.94', true)).toBe('00:01:00;04');
    expect(labelToFrames('01:00:00;00', '59.94', true)).toBe(215784);
  });

  it('round-trips every frame around minute boundaries', () => {
    for (let f = 17_000; f < 19_000; f++) {
      expect(labelToFrames(framesToLabel(f, '29.97', true), '29.97', true)).toBe(f);
    }
  });

  it('rejects the wrong separator for the timebase', () => {
    expect(labelToFrames('01:00:00:00', '29.97', true)).toBeNull();
    expect(labelToFrames('01:00:00;00', '25', false)).toBeNull();
    expect(labelToFrames('01:00:00:25', '25', false)).toBeNull();
  });
});

describe('agrees with the service', () => {
  it('formats and parses the same labels for every rate', () => {
    for (const rate of FRAME_RATES) {
      for (const drop of rate === '29.97' || rate === '59.94' ? [false, true] : [false]) {
        for (const f of [0, 1, 59, 1799, 1800, 1801, 17982, 107892, 2_589_407, 5_000_000]) {
          const label = framesToLabel(f, rate, drop);
          expect(label).toBe(serviceFormat(f, { frameRate: rate, dropFrame: drop }));
          const parsed = serviceParse(label, { frameRate: rate, dropFrame: drop });
          expect(parsed.ok && parsed.frames).toBe(labelToFrames(label, rate, drop));
        }
      }
    }
  });
});

describe('agrees with the service on seconds', () => {
  it('labels the same instants with a start timecode', () => {
    const clocks = [
      { frameRate: '29.97' as const, dropFrame: true, startTimecode: '00:59:59;00' },
      { frameRate: '23.976' as const, dropFrame: false, startTimecode: '10:00:00:00' },
      { frameRate: '59.94' as const, dropFrame: true, startTimecode: null },
    ];
    for (const clock of clocks) {
      for (const t of [0, 1001 / 30000, 0.999, 59.94, 600.5, 3599.99, 5000]) {
        expect(secondsToTimecode(t, clock)).toBe(serviceSecondsToTimecode(t, clock));
      }
    }
  });
});

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
