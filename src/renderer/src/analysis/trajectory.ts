/**
 * A speaker's arc as the speaker panel plots it: valence, arousal and energy per line over the recording's
 * time. Each series has its own vertical scale (their units differ): the documented range of the value
 * (valence −1…+1, arousal 0…1), widened if a value falls outside it; energy, in dBFS, has no fixed range,
 * so it spans the speaker's own levels (at least 6 dB, so small wobbles do not look like big swings).
 * The x axis is the whole recording, so every speaker's chart lines up with the waveform above. Pure.
 */
import type { TrajectoryPoint } from '../../../shared/schemas/analysis';

export type SeriesKey = 'valence' | 'arousal' | 'energy';

export interface SeriesSpec {
  key: SeriesKey;
  label: string;
  colour: string;
  /** The value's documented range, or null when it has none. */
  nominal: [number, number] | null;
  /** Smallest span of the scale, in the value's unit. */
  minSpan: number;
  unit: string;
  value(p: TrajectoryPoint): number | null;
}

export const TRAJECTORY_SERIES: readonly SeriesSpec[] = [
  {
    key: 'valence',
    label: 'Valence',
    colour: '#4f9cf9',
    nominal: [-1, 1],
    minSpan: 0,
    unit: '',
    value: (p) => p.valence,
  },
  {
    key: 'arousal',
    label: 'Arousal',
    colour: '#ff7043',
    nominal: [0, 1],
    minSpan: 0,
    unit: '',
    value: (p) => p.arousal,
  },
  {
    key: 'energy',
    label: 'Energy',
    colour: '#2fbf71',
    nominal: null,
    minSpan: 6,
    unit: 'dBFS',
    value: (p) => p.energy_db,
  },
];

export interface PlotArea {
  width: number;
  height: number;
  /** Room left inside the edges so points are not cut (pixels). */
  padding: number;
}

export interface PlotPoint {
  x: number;
  y: number;
  value: number;
  segmentId: number;
  /** The line's span and midpoint, seconds. */
  start: number;
  end: number;
  t: number;
  emotion: string;
}

export interface PlotSeries {
  key: SeriesKey;
  label: string;
  colour: string;
  unit: string;
  domain: [number, number];
  points: PlotPoint[];
}

/** The scale of a series: its nominal range widened to hold every value, at least `minSpan` wide, centred on the data when widened. */
export function seriesDomain(
  values: readonly number[],
  nominal: [number, number] | null,
  minSpan: number,
): [number, number] {
  const finite = values.filter(Number.isFinite);
  let lo = nominal ? nominal[0] : Infinity;
  let hi = nominal ? nominal[1] : -Infinity;
  for (const v of finite) {
    lo = Math.min(lo, v);
    hi = Math.max(hi, v);
  }
  if (!Number.isFinite(lo) || !Number.isFinite(hi)) return [0, 1];
  if (hi - lo < minSpan || hi === lo) {
    const mid = (lo + hi) / 2;
    const half = Math.max(minSpan, 1e-9) / 2;
    return [mid - half, mid + half];
  }
  return [lo, hi];
}

/** x for a time (0…duration across the padded width) and y for a value (domain bottom → top). */
export function scaleX(t: number, duration: number, area: PlotArea): number {
  const span = area.width - 2 * area.padding;
  const frac = duration > 0 ? Math.min(1, Math.max(0, t / duration)) : 0;
  return area.padding + frac * span;
}

export function scaleY(value: number, domain: [number, number], area: PlotArea): number {
  const span = area.height - 2 * area.padding;
  const [lo, hi] = domain;
  const frac = hi > lo ? (value - lo) / (hi - lo) : 0.5;
  return area.padding + (1 - Math.min(1, Math.max(0, frac))) * span;
}

export function plotTrajectory(
  trajectory: readonly TrajectoryPoint[],
  duration: number,
  area: PlotArea,
  series: readonly SeriesSpec[] = TRAJECTORY_SERIES,
): PlotSeries[] {
  const ordered = [...trajectory].sort((a, b) => a.t - b.t);
  return series.map((spec) => {
    const valued = ordered.flatMap((p) => {
      const v = spec.value(p);
      return v === null || !Number.isFinite(v) ? [] : [{ p, v }];
    });
    const domain = seriesDomain(
      valued.map((x) => x.v),
      spec.nominal,
      spec.minSpan,
    );
    return {
      key: spec.key,
      label: spec.label,
      colour: spec.colour,
      unit: spec.unit,
      domain,
      points: valued.map(({ p, v }) => ({
        x: scaleX(p.t, duration, area),
        y: scaleY(v, domain, area),
        value: v,
        segmentId: p.segment_id,
        start: p.start,
        end: p.end,
        t: p.t,
        emotion: p.emotion,
      })),
    };
  });
}

/** An SVG polyline's `points` attribute, coordinates to 0.1 px. */
export function polyline(points: readonly { x: number; y: number }[]): string {
  return points.map((p) => `${p.x.toFixed(1)},${p.y.toFixed(1)}`).join(' ');
}

/** A value as the chart's hover text shows it: "−0.25", "0.80", "−21.4 dBFS". */
export function seriesValueText(value: number, unit: string): string {
  const s = value.toFixed(unit ? 1 : 2).replace(/^-/, '−');
  return unit ? `${s} ${unit}` : s;
}

/**
 * When a speaker's arc is broken rather than joined: where the silence between two of the speaker's
 * consecutive lines (the next line's start minus this one's end) is longer than three times the median
 * such silence of the speaker — at least 5 s, so ordinary turn-taking never breaks it — or longer than
 * 30 s in any case. A line drawn across a long silence would show a trend the speaker never spoke.
 */
export const ARC_GAP_RULE = { medianFactor: 3, minSeconds: 5, maxSeconds: 30 } as const;

/** The silence beyond which the arc breaks, for a speaker's lines in time order. */
export function arcGapLimit(points: readonly { start: number; end: number }[], rule = ARC_GAP_RULE): number {
  const silences = points.slice(1).map((p, i) => Math.max(0, p.start - points[i]!.end));
  if (silences.length === 0) return rule.maxSeconds;
  const sorted = [...silences].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return Math.min(rule.maxSeconds, Math.max(rule.minSeconds, rule.medianFactor * median));
}

/** A speaker's points (in time order) as the runs a line joins: broken where arcGapLimit says. */
export function splitAtGaps<T extends { start: number; end: number }>(points: readonly T[], limit = arcGapLimit(points)): T[][] {
  const runs: T[][] = [];
  let run: T[] = [];
  points.forEach((p, i) => {
    if (i > 0 && p.start - points[i - 1]!.end > limit) {
      runs.push(run);
      run = [];
    }
    run.push(p);
  });
  if (run.length) runs.push(run);
  return runs;
}
