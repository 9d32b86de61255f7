import { describe, expect, it } from 'vitest';
import {
  legendEntries,
  parseHidden,
  serializeHidden,
  toggleKind,
  toggleLane,
  visibleMarkers,
} from './filters';
import type { LaneId, Marker } from './model';

const m = (id: string, lane: LaneId, kind: string): Marker => ({
  id,
  lane,
  kind,
  start: 0,
  end: 1,
  label: id,
  detail: [],
});
const markers = [
  m('a', 'events', 'event.laughter'),
  m('b', 'events', 'event.applause'),
  m('c', 'events', 'event.applause'),
  m('d', 'conditions', 'condition.hum'),
  m('e', 'issues', 'issue.some_new_type'),
];

describe('legendEntries', () => {
  it('groups kinds by lane in lane order, named and counted, with their style', () => {
    const legend = legendEntries(markers);
    expect(legend.map((l) => l.lane)).toEqual(['conditions', 'issues', 'events']);
    expect(legend[2]!.kinds.map((k) => [k.kind, k.label, k.count])).toEqual([
      ['event.applause', 'Applause', 2],
      ['event.laughter', 'Laughter', 1],
    ]);
    expect(legend[0]!.kinds[0]).toMatchObject({ label: 'Hum', shape: 'square' });
    // A type the registry does not know is still named and drawn.
    expect(legend[1]!.kinds[0]!.label).toBe('Some new type');
    expect(legend[1]!.kinds[0]!.colour).toMatch(/^#[0-9a-f]{6}$/);
  });
});

describe('filters', () => {
  it('toggles one kind on and off', () => {
    const hidden = toggleKind(new Set(), 'event.applause');
    expect(visibleMarkers(markers, hidden).map((x) => x.id)).toEqual(['a', 'd', 'e']);
    expect(visibleMarkers(markers, toggleKind(hidden, 'event.applause'))).toHaveLength(5);
  });

  it('hides a whole lane, then shows it all again', () => {
    const kinds = ['event.applause', 'event.laughter'];
    const partly = new Set(['event.applause']);
    const all = toggleLane(partly, kinds);
    expect([...all].sort()).toEqual(kinds);
    expect(toggleLane(all, kinds).size).toBe(0);
  });

  it('keeps hidden kinds as JSON and ignores anything unreadable', () => {
    const hidden = new Set(['event.music', 'condition.hum']);
    expect(parseHidden(serializeHidden(hidden))).toEqual(hidden);
    expect(parseHidden('not json').size).toBe(0);
    expect(parseHidden('{"a":1}').size).toBe(0);
    expect([...parseHidden('["x", 3]')]).toEqual(['x']);
  });
});
