import { describe, expect, it } from 'vitest';
import { layoutMarkers } from './layout';
import type { Marker } from './model';

const m = (id: string, start: number, end?: number): Marker => ({
  id,
  kind: 'moment',
  start,
  end,
  label: id,
});

describe('layoutMarkers', () => {
  it('places ranges and points as percentages of the duration', () => {
    const [a, b] = layoutMarkers([m('a', 10, 20), m('b', 50)], 100);
    expect(a).toMatchObject({ leftPct: 10, widthPct: 10, lane: 0, point: false });
    expect(b).toMatchObject({ leftPct: 50, widthPct: 0, lane: 0, point: true });
  });

  it('stacks overlapping markers in lanes and reuses free lanes', () => {
    const placed = layoutMarkers([m('a', 0, 30), m('b', 10, 20), m('c', 25, 40), m('d', 35, 36)], 100);
    expect(Object.fromEntries(placed.map((p) => [p.marker.id, p.lane]))).toEqual({ a: 0, b: 1, c: 1, d: 0 });
  });

  it('clamps to the recording and drops markers outside it', () => {
    const placed = layoutMarkers([m('in', 90, 120), m('out', 150)], 100);
    expect(placed).toHaveLength(1);
    expect(placed[0]!.widthPct).toBe(10);
    expect(layoutMarkers([m('a', 1)], 0)).toEqual([]);
  });
});
