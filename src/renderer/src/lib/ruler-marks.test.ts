import { describe, expect, it } from 'vitest';
import { formatTimecode, parseTimecode } from '../../../shared/timecode';
import { frameToLabelCount, labelCountToFrame, rulerMarks } from './ruler-marks';
import { framesToSeconds, rulerSteps, secondsToTimecode, type Timebase } from './timecode';

const DF: Timebase = { frameRate: '29.97', dropFrame: true, startTimecode: '01:00:00;00' };
const DF60: Timebase = { frameRate: '59.94', dropFrame: true, startTimecode: '00:00:00;00' };

/** HH:MM:SS;FF read as one number at the nominal rate, as the ruler counts labels. */
function labelNumber(label: string, nominal: number): number {
  const [hh, mm, ss, ff] = label.split(/[:;]/).map(Number) as [number, number, number, number];
  return (hh * 3600 + mm * 60 + ss) * nominal + ff;
}

/** A label is round if its frames are 00, or the first label that exists where ;00 is skipped. */
function isRound(label: string, drop: number): boolean {
  const [, mm, ss, ff] = label.split(/[:;]/).map(Number) as [number, number, number, number];
  return ff === 0 || (ff === drop && ss === 0 && mm % 10 !== 0);
}

describe('frameToLabelCount / labelCountToFrame', () => {
  it('agree with the shared timecode labels for every frame of the first 21 minutes at 29.97 and 59.94 DF', () => {
    for (const tb of [DF, DF60]) {
      const nominal = tb.frameRate === '29.97' ? 30 : 60;
      for (let f = 0; f < nominal * 60 * 21; f++) {
        const count = frameToLabelCount(f, tb);
        expect(count).toBe(labelNumber(formatTimecode(f, tb), nominal));
        expect(labelCountToFrame(count, tb)).toBe(f);
      }
    }
  });

  it('maps a skipped drop-frame label to the first label that exists after it', () => {
    const skipped = labelNumber('00:01:00;00', 30);
    expect(formatTimecode(labelCountToFrame(skipped, DF), DF)).toBe('00:01:00;02');
    expect(formatTimecode(labelCountToFrame(skipped + 1, DF), DF)).toBe('00:01:00;02');
    expect(formatTimecode(labelCountToFrame(labelNumber('00:10:00;00', 30), DF), DF)).toBe('00:10:00;00');
    expect(formatTimecode(labelCountToFrame(labelNumber('00:01:00;00', 60), DF60), DF60)).toBe('00:01:00;04');
  });

  it('is the identity without drop frame', () => {
    const ndf = { frameRate: '25', dropFrame: false } as const;
    expect(frameToLabelCount(90_000, ndf)).toBe(90_000);
    expect(labelCountToFrame(90_000, ndf)).toBe(90_000);
  });
});

describe('rulerMarks', () => {
  it('labels round drop-frame timecode, where real-time positions fall on odd frames', () => {
    // The positions the ruler used before: every 10 s of real time.
    expect(secondsToTimecode(10, DF)).toBe('01:00:09;29');
    expect(secondsToTimecode(120, DF)).toBe('01:01:59;28');
    const labels = rulerMarks(0, 125, { label: 10, tick: 2 }, DF).filter((m) => m.label);
    expect(labels.map((m) => m.label)).toEqual([
      '01:00:00;00',
      '01:00:10;00',
      '01:00:20;00',
      '01:00:30;00',
      '01:00:40;00',
      '01:00:50;00',
      '01:01:00;02',
      '01:01:10;00',
      '01:01:20;00',
      '01:01:30;00',
      '01:01:40;00',
      '01:01:50;00',
      '01:02:00;02',
    ]);
    // Each label sits where its frame starts: the readout at the mark shows the same label.
    for (const m of labels) expect(secondsToTimecode(m.t, DF)).toBe(m.label);
    expect(labels[1]!.t).toBeCloseTo(framesToSeconds(300, '29.97'), 9);
  });

  it('keeps every label round over an hour of 29.97 and 59.94 DF at every zoom the ruler uses', () => {
    for (const tb of [DF, DF60]) {
      const drop = tb.frameRate === '29.97' ? 2 : 4;
      for (const pxPerSecond of [0.05, 0.4, 3, 14, 50, 200]) {
        const steps = rulerSteps(pxPerSecond, tb);
        if (steps.label < 1) continue;
        const span = Math.min(3600, 4000 / pxPerSecond);
        const labels = rulerMarks(0, span, steps, tb).flatMap((m) => (m.label ? [m.label] : []));
        expect(labels.length).toBeGreaterThan(1);
        expect(labels.filter((l) => !isRound(l, drop))).toEqual([]);
      }
    }
  });

  it('labels whole frames below a second, counted on the timecode', () => {
    const steps = rulerSteps(1000, DF); // 6 frames a label
    const frames = Math.round(steps.label * 30);
    expect(frames).toBe(6);
    const marks = rulerMarks(59.9, 60.5, steps, DF);
    const labels = marks.flatMap((m) => (m.label ? [m.label] : []));
    expect(labels).toEqual(['01:01:00;02', '01:01:00;06', '01:01:00;12']);
    // Ticks between labels: labels one in five.
    expect(marks.length).toBeGreaterThanOrEqual(labels.length * 4);
  });

  it('counts round labels from the start timecode, not from the start of the recording', () => {
    const tb: Timebase = { frameRate: '25', dropFrame: false, startTimecode: '00:59:58:12' };
    const labels = rulerMarks(0, 25, { label: 10, tick: 2 }, tb).filter((m) => m.label);
    expect(labels.map((m) => m.label)).toEqual(['01:00:00:00', '01:00:10:00', '01:00:20:00']);
    expect(labels[0]!.t).toBeCloseTo(38 / 25, 9);
    expect(parseTimecode(labels[2]!.label!, tb).ok).toBe(true);
  });

  it('ticks and labels clock time without a timebase', () => {
    const marks = rulerMarks(3, 21, { label: 10, tick: 2 }, null);
    expect(marks.map((m) => m.t)).toEqual([4, 6, 8, 10, 12, 14, 16, 18, 20]);
    expect(marks.filter((m) => m.label).map((m) => m.label)).toEqual(['0:10', '0:20']);
  });

  it('answers nothing for an empty or inverted stretch', () => {
    expect(rulerMarks(5, 4, { label: 1, tick: 0.2 }, DF)).toEqual([]);
    expect(rulerMarks(0, 10, { label: 1, tick: 0 }, null)).toEqual([]);
  });
});
