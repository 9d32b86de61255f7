import { describe, expect, it } from 'vitest';
import { nextMarkerTime } from '../lib/in-out';
import { legendEntries, visibleMarkers } from './filters';
import { kindStyle } from './kinds';
import { layoutLanes } from './layout';
import type { Marker } from './model';
import { OWN_MARKER_KIND, ownMarkers, withOwnMarkers } from './own';

const own = [
  { id: 'm1', time: 3, name: 'Cut here', created_at: '2026-11-28T15:00:00Z' },
  { id: 'm2', time: 6.5, name: 'Check the name', created_at: '2026-11-28T15:01:00Z' },
];
const analysis: Marker[] = [
  { id: 'a', lane: 'events', kind: 'event.applause', start: 4, end: 5, label: 'Applause', detail: [] },
  { id: 'b', lane: 'moments', kind: 'moment.select', start: 8, end: 9, label: 'Select', detail: [] },
];

describe('own markers on the timeline', () => {
  it('become point markers of their own lane and kind, named as the editor named them', () => {
    const made = ownMarkers(own);
    expect(made.map((m) => [m.id, m.lane, m.kind, m.start, m.end, m.label])).toEqual([
      ['own:m1', 'own', OWN_MARKER_KIND, 3, undefined, 'Cut here'],
      ['own:m2', 'own', OWN_MARKER_KIND, 6.5, undefined, 'Check the name'],
    ]);
    expect(kindStyle(OWN_MARKER_KIND).label).toBe('Marker');
  });

  it('get the first lane and a legend entry of their own', () => {
    const all = withOwnMarkers(own, analysis);
    const lanes = layoutLanes(all, 10);
    expect(lanes.map((l) => l.lane)).toEqual(['own', 'events', 'moments']);
    expect(lanes[0]!.placed.map((p) => [p.leftPct, p.point])).toEqual([
      [30, true],
      [65, true],
    ]);
    expect(legendEntries(all)[0]).toMatchObject({ lane: 'own', label: 'Your markers', kinds: [{ kind: OWN_MARKER_KIND, count: 2 }] });
  });

  it('take part in ] / [ with the analysis markers, and alone for Shift (same kind)', () => {
    const all = withOwnMarkers(own, analysis);
    // ] from 0: own 3, applause 4, own 6.5, select 8.
    const visits: number[] = [];
    let t = 0;
    for (;;) {
      const next = nextMarkerTime(visibleMarkers(all, new Set()), t, 1);
      if (next === null) break;
      visits.push(next);
      t = next;
    }
    expect(visits).toEqual([3, 4, 6.5, 8]);
    const sameKind = all.filter((m) => m.kind === OWN_MARKER_KIND);
    expect(nextMarkerTime(sameKind, 3, 1)).toBe(6.5);
    expect(nextMarkerTime(sameKind, 6.5, 1)).toBeNull();
    expect(nextMarkerTime(sameKind, 6.5, -1)).toBe(3);
    // Hidden in the legend: not visited.
    expect(nextMarkerTime(visibleMarkers(all, new Set([OWN_MARKER_KIND])), 0, 1)).toBe(4);
  });

  it('leave the analysis markers as they are when there are none', () => {
    expect(withOwnMarkers([], analysis)).toEqual(analysis);
  });
});
