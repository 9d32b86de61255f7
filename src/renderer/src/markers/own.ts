/**
 * The editor's own markers (`…/markers`, kept by the service) as timeline markers: their own lane and one
 * kind, so they are drawn with the analysis' markers, listed in the legend (and can be hidden there) and
 * visited by the ] / [ jumps (Shift: own markers only, as for any kind).
 */
import type { EditorMarker } from '../../../shared/schemas/editor';
import type { Marker } from './model';

export const OWN_MARKER_KIND = 'own.marker';

export function ownMarkers(list: readonly EditorMarker[]): Marker[] {
  return list.map((m) => ({
    // Prefixed so an own marker's id never meets an analysis marker's.
    id: `own:${m.id}`,
    lane: 'own',
    kind: OWN_MARKER_KIND,
    start: m.time,
    label: m.name,
    detail: ['Your marker'],
  }));
}

/** The markers the timeline shows: the editor's own first, then the analysis' (already in their lanes). */
export function withOwnMarkers(own: readonly EditorMarker[], analysis: readonly Marker[]): Marker[] {
  return own.length ? [...ownMarkers(own), ...analysis] : [...analysis];
}
