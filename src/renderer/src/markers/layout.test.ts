import { describe, expect, it } from 'vitest';
import { layoutLanes, layoutMarkers } from './layout';
import type { LaneId, Marker } from './model';

const m = (id: string, start: number, end?: number, extra: Partial<Marker> = {}): Marker => ({
  id,
  lane: 'events',
  kind: 'event.applause',
  start,
  end,
  label: id,
  detail: [],
  ...extra,
});

describe('layoutMarkers', () => {
  it('places ranges and points as percentages of the duration', () => {
    const [a, b] = layoutMarkers([m('a', 10, 20), m('b', 50)], 100);
    expect(a).toMatchObject({ leftPct: 10, widthPct: 10, lane: 0, point: false });
    expect(b).toMatchObject({ leftPct: 50, widthPct: 0, lane: 0, point: true });
  });

  it('stacks overlapping markers in rows and reuses free rows', () => {
    const placed = layoutMarkers([m('a', 0, 30), m('b', 10, 20), m('c', 25, 40), m('d', 35, 36)], 100);
    expect(Object.fromEntries(placed.map((p) => [p.marker.id, p.lane]))).toEqual({ a: 0, b: 1, c: 1, d: 0 });
  });

  it('draws a marker with `at` as a point there, not over its span', () => {
    const placed = layoutMarkers([m('shift', 10, 60, { at: 30 }), m('other', 40, 50)], 100);
    expect(placed.find((p) => p.marker.id === 'shift')).toMatchObject({
      leftPct: 30,
      widthPct: 0,
      point: true,
      lane: 0,
    });
    // The shift's span does not block the row: a later range shares it.
    expect(placed.find((p) => p.marker.id === 'other')!.lane).toBe(0);
  });

  it('clamps to the recording and drops markers outside it', () => {
    const placed = layoutMarkers([m('in', 90, 120), m('out', 150)], 100);
    expect(placed).toHaveLength(1);
    expect(placed[0]!.widthPct).toBe(10);
    expect(layoutMarkers([m('a', 1)], 0)).toEqual([]);
  });
});

describe('layoutLanes', () => {
  it('orders lanes as the model does, counts rows per lane, and leaves out empty lanes', () => {
    const on = (lane: LaneId) => ({ lane, kind: `${lane}.x` });
    const lanes = layoutLanes(
      [m('e', 0, 10, on('events')), m('c1', 0, 50, on('conditions')), m('c2', 20, 30, on('conditions'))],
      100,
    );
    expect(lanes.map((l) => [l.lane, l.rows, l.placed.length])).toEqual([
      ['conditions', 2, 2],
      ['events', 1, 1],
    ]);
  });
});
