/**
 * Timeline markers the analysis will fill: delivery (how a line was delivered), moment (worth a look:
 * select/unusable/trim) and event (applause, pace shift…). Times in seconds; `end` absent for a point.
 */
export type MarkerKind = 'delivery' | 'moment' | 'event';

export interface Marker {
  id: string;
  kind: MarkerKind;
  start: number;
  end?: number;
  label: string;
  /** 0..1, how much the marker matters; drives its opacity. */
  severity?: number;
}

export const MARKER_KINDS: MarkerKind[] = ['delivery', 'moment', 'event'];
