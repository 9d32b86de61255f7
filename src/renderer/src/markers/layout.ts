/** Where markers sit on the timeline: percentages of the duration, and lanes so overlaps never hide each other. */
import type { Marker } from './model';

export interface PlacedMarker {
  marker: Marker;
  leftPct: number;
  widthPct: number;
  lane: number;
  point: boolean;
}

export function layoutMarkers(markers: readonly Marker[], duration: number): PlacedMarker[] {
  if (!(duration > 0)) return [];
  const sorted = markers
    .filter((m) => Number.isFinite(m.start) && m.start <= duration && (m.end ?? m.start) >= 0)
    .slice()
    .sort((a, b) => a.start - b.start || (b.end ?? b.start) - (a.end ?? a.start));
  const laneEnds: number[] = [];
  // Point markers still occupy a little time so two at the same instant take different lanes.
  const minSpan = duration * 0.002;
  return sorted.map((marker) => {
    const start = Math.max(0, marker.start);
    const end = Math.min(duration, Math.max(start, marker.end ?? start));
    const occupiedEnd = Math.max(end, start + minSpan);
    let lane = laneEnds.findIndex((laneEnd) => laneEnd <= start);
    if (lane < 0) lane = laneEnds.push(occupiedEnd) - 1;
    else laneEnds[lane] = occupiedEnd;
    return {
      marker,
      leftPct: (start / duration) * 100,
      widthPct: ((end - start) / duration) * 100,
      lane,
      point: marker.end === undefined || end === start,
    };
  });
}
