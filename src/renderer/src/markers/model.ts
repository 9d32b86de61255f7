/**
 * Timeline markers: anything the analysis places on the recording's time axis. A marker belongs to a lane
 * (a horizontal band under the waveform: recording conditions, line quality, audience events; the later
 * moments and delivery lanes; the editor's own markers) and has a kind (`lane.type`, e.g. `event.applause`) that decides its colour,
 * shape, legend entry and filter toggle (see kinds.ts). Times in seconds.
 */
export const LANES = [
  // The editor's own markers: first, so they sit right under the waveform.
  { id: 'own', label: 'Your markers' },
  { id: 'conditions', label: 'Conditions' },
  { id: 'issues', label: 'Line quality' },
  { id: 'events', label: 'Audience & pace' },
  { id: 'moments', label: 'Moments' },
  { id: 'delivery', label: 'Delivery' },
] as const;

export type LaneId = (typeof LANES)[number]['id'];

export interface Marker {
  /** Unique among the markers shown together. */
  id: string;
  lane: LaneId;
  /** `lane.type`, e.g. `condition.hum`, `issue.clipping`, `event.pace_shift`. */
  kind: string;
  start: number;
  /** Absent or equal to start for a point. */
  end?: number;
  /** Where a marker with a span is drawn as a point (a pace shift happens at one instant between two stretches). */
  at?: number;
  /** Short name of what it is ("Applause"). */
  label: string;
  /** Further lines for the hover card: evidence, confidence, source. */
  detail: string[];
  /** 0..1, how much the marker matters; drives its opacity. */
  severity?: number;
  /** The transcript line the marker belongs to, if any (clicking it opens that line). */
  segmentId?: number;
}

export function laneIndex(lane: LaneId): number {
  return LANES.findIndex((l) => l.id === lane);
}

export function laneLabel(lane: LaneId): string {
  return LANES.find((l) => l.id === lane)?.label ?? lane;
}
