import { describe, expect, it } from 'vitest';
import type { TrajectoryPoint } from '../../../shared/schemas/analysis';
import {
  arcGapLimit,
  plotTrajectory,
  polyline,
  scaleX,
  scaleY,
  seriesDomain,
  seriesValueText,
  splitAtGaps,
} from './trajectory';

const area = { width: 220, height: 120, padding: 10 };

function point(
  segment_id: number,
  t: number,
  valence: number,
  arousal: number,
  energy_db: number | null,
): TrajectoryPoint {
  return {
    t,
    start: t - 1,
    end: t + 1,
    segment_id,
    emotion: 'neutral',
    valence,
    arousal,
    confidence: 0.5,
    engagement: 0.5,
    energy_db,
    score: 0.6,
  };
}

describe('seriesDomain', () => {
  it('keeps the documented range while the values fit in it', () => {
    expect(seriesDomain([-0.2, 0.5], [-1, 1], 0)).toEqual([-1, 1]);
  });
  it('widens it to hold a value outside', () => {
    expect(seriesDomain([0.2, 1.4], [0, 1], 0)).toEqual([0, 1.4]);
  });
  it('spans the data when there is no range, at least minSpan wide, centred', () => {
    expect(seriesDomain([-30, -18], null, 6)).toEqual([-30, -18]);
    expect(seriesDomain([-21, -20], null, 6)).toEqual([-23.5, -17.5]);
    expect(seriesDomain([-20], null, 6)).toEqual([-23, -17]);
  });
  it('falls back to 0…1 with nothing to scale', () => {
    expect(seriesDomain([], null, 6)).toEqual([0, 1]);
    expect(seriesDomain([Number.NaN], null, 6)).toEqual([0, 1]);
  });
});

describe('scales', () => {
  it('maps time across the padded width and values bottom to top', () => {
    expect(scaleX(0, 100, area)).toBe(10);
    expect(scaleX(50, 100, area)).toBe(110);
    expect(scaleX(100, 100, area)).toBe(210);
    expect(scaleX(150, 100, area)).toBe(210); // clamped
    expect(scaleY(-1, [-1, 1], area)).toBe(110);
    expect(scaleY(1, [-1, 1], area)).toBe(10);
    expect(scaleY(0, [-1, 1], area)).toBe(60);
    expect(scaleY(5, [5, 5], area)).toBe(60);
  });
});

describe('plotTrajectory', () => {
  it('one series per measure, points in time order at the line midpoints, energy skipped where null', () => {
    const traj = [point(4, 60, 0.5, 1, -20), point(1, 20, -0.5, 0, null), point(7, 100, 0, 0.5, -26)];
    const [valence, arousal, energy] = plotTrajectory(traj, 100, area);
    expect(valence!.points.map((p) => [p.segmentId, p.x, p.y])).toEqual([
      [1, 50, 85],
      [4, 130, 35],
      [7, 210, 60],
    ]);
    expect(arousal!.domain).toEqual([0, 1]);
    expect(arousal!.points.map((p) => p.y)).toEqual([110, 10, 60]);
    expect(energy!.domain).toEqual([-26, -20]);
    expect(energy!.points.map((p) => [p.segmentId, p.y, p.value])).toEqual([
      [4, 10, -20],
      [7, 110, -26],
    ]);
    expect(energy!.unit).toBe('dBFS');
    expect(valence!.points[0]).toMatchObject({ start: 19, end: 21, t: 20, emotion: 'neutral' });
  });

  it('draws the lines and writes the values', () => {
    expect(
      polyline([
        { x: 1, y: 2.25 },
        { x: 3.04, y: 4 },
      ]),
    ).toBe('1.0,2.3 3.0,4.0');
    expect(seriesValueText(-0.25, '')).toBe('−0.25');
    expect(seriesValueText(-21.43, 'dBFS')).toBe('−21.4 dBFS');
  });
});

describe('splitAtGaps (the arc is broken across long silences)', () => {
  const line = (start: number, end: number) => ({ start, end });

  it('joins ordinary turn-taking and breaks at a silence over three times the median', () => {
    // Silences of 2, 3, 2, 40 (another speaker's long stretch) and 3 s: median 3 s → limit max(5, 9) = 9 s.
    const lines = [line(0, 4), line(6, 9), line(12, 15), line(17, 20), line(60, 63), line(66, 70)];
    expect(arcGapLimit(lines)).toBe(9);
    expect(splitAtGaps(lines).map((run) => run.length)).toEqual([4, 2]);
  });

  it('breaks at 30 s whatever the median, and never below 5 s', () => {
    const sparse = [line(0, 1), line(40, 41), line(80, 81), line(125, 126)];
    expect(arcGapLimit(sparse)).toBe(30);
    expect(splitAtGaps(sparse).map((run) => run.length)).toEqual([1, 1, 1, 1]);
    const dense = [line(0, 2), line(2.5, 4), line(4.4, 6), line(10, 12)];
    expect(arcGapLimit(dense)).toBe(5);
    expect(splitAtGaps(dense).map((run) => run.length)).toEqual([4]);
  });

  it('keeps a lone line as a run of one, and nothing as nothing', () => {
    expect(splitAtGaps([line(3, 4)])).toEqual([[line(3, 4)]]);
    expect(splitAtGaps([])).toEqual([]);
  });
});
