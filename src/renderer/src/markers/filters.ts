/** The legend's entries and its filter toggles: which kinds are on the timeline, and which are hidden. */
import { kindStyle, type KindStyle } from './kinds';
import { LANES, laneLabel, type LaneId, type Marker } from './model';

export interface LegendKind extends KindStyle {
  kind: string;
  count: number;
}

export interface LegendLane {
  lane: LaneId;
  label: string;
  kinds: LegendKind[];
}

/** Lanes in their fixed order, each with its kinds (by name) and how many markers each has. */
export function legendEntries(markers: readonly Marker[]): LegendLane[] {
  const counts = new Map<LaneId, Map<string, number>>();
  for (const m of markers) {
    const lane = counts.get(m.lane) ?? counts.set(m.lane, new Map()).get(m.lane)!;
    lane.set(m.kind, (lane.get(m.kind) ?? 0) + 1);
  }
  return LANES.flatMap(({ id }) => {
    const kinds = counts.get(id);
    if (!kinds) return [];
    return [
      {
        lane: id,
        label: laneLabel(id),
        kinds: [...kinds]
          .map(([kind, count]) => ({ kind, count, ...kindStyle(kind) }))
          .sort((a, b) => a.label.localeCompare(b.label) || a.kind.localeCompare(b.kind)),
      },
    ];
  });
}

export function toggleKind(hidden: ReadonlySet<string>, kind: string): Set<string> {
  const next = new Set(hidden);
  if (!next.delete(kind)) next.add(kind);
  return next;
}

/** A lane's toggle: hides all its kinds, or shows them all again when every one was hidden. */
export function toggleLane(hidden: ReadonlySet<string>, kinds: readonly string[]): Set<string> {
  const next = new Set(hidden);
  const allHidden = kinds.every((k) => hidden.has(k));
  for (const k of kinds) {
    if (allHidden) next.delete(k);
    else next.add(k);
  }
  return next;
}

export function visibleMarkers(markers: readonly Marker[], hidden: ReadonlySet<string>): Marker[] {
  return markers.filter((m) => !hidden.has(m.kind));
}

/** Hidden kinds as kept between sessions (a JSON array); anything unreadable means nothing hidden. */
export function parseHidden(stored: string | null): Set<string> {
  if (!stored) return new Set();
  try {
    const value: unknown = JSON.parse(stored);
    return new Set(Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);
  } catch {
    return new Set();
  }
}

export function serializeHidden(hidden: ReadonlySet<string>): string {
  return JSON.stringify([...hidden].sort());
}
