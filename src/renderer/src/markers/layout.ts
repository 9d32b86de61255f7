/**
 * Where markers sit on the timeline: percentages of the duration; per lane, rows so overlaps never hide
 * each other. A marker with `at` is drawn (and occupies room) as a point there, whatever its span.
 */
import { LANES, type LaneId, type Marker } from './model';

export interface PlacedMarker {
  marker: Marker;
  leftPct: number;
  widthPct: number;
  /** Row within the marker's lane. */
  lane: number;
  point: boolean;
}

export interface LaneLayout {
  lane: LaneId;
  rows: number;
  placed: PlacedMarker[];
}

function pointTime(m: Marker): number | null {
  if (m.at !== undefined) return m.at;
  return m.end === undefined || m.end <= m.start ? m.start : null;
}

export function layoutMarkers(markers: readonly Marker[], duration: number): PlacedMarker[] {
  if (!(duration > 0)) return [];
  const items = markers
    .filter(
      (m) => Number.isFinite(m.start) && (pointTime(m) ?? m.start) <= duration && (m.end ?? m.start) >= 0,
    )
    .map((marker) => {
      const at = pointTime(marker);
      const start = Math.max(0, at ?? marker.start);
      const end = at !== null ? start : Math.min(duration, Math.max(start, marker.end ?? start));
      return { marker, start, end, point: at !== null };
    })
    .sort((a, b) => a.start - b.start || b.end - a.end);
  const rowEnds: number[] = [];
  // Point markers still occupy a little time so two at the same instant take different rows.
  const minSpan = duration * 0.004;
  return items.map(({ marker, start, end, point }) => {
    const occupiedEnd = Math.max(end, start + minSpan);
    let row = rowEnds.findIndex((rowEnd) => rowEnd <= start);
    if (row < 0) row = rowEnds.push(occupiedEnd) - 1;
    else rowEnds[row] = occupiedEnd;
    return {
      marker,
      leftPct: (start / duration) * 100,
      widthPct: ((end - start) / duration) * 100,
      lane: row,
      point,
    };
  });
}

/** Lanes in their fixed order (model.ts), each with the rows its markers need; lanes without markers are left out. */
export function layoutLanes(markers: readonly Marker[], duration: number): LaneLayout[] {
  const out: LaneLayout[] = [];
  for (const { id } of LANES) {
    const placed = layoutMarkers(
      markers.filter((m) => m.lane === id),
      duration,
    );
    if (placed.length) out.push({ lane: id, rows: Math.max(...placed.map((p) => p.lane)) + 1, placed });
  }
  return out;
}
