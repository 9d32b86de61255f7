/**
 * Timeline markers from an Analysis document: recording conditions (each of their time ranges), per-line
 * quality issues (over the line's span), audience events and pace shifts, and, once the service fills them in,
 * moments and delivery labels. One builder per lane; `analysisMarkers` joins them.
 */
import type {
  AnalysisSegment,
  AudienceEvent,
  Intelligence,
  PaceShiftEvent,
  Source,
} from '../../../shared/schemas/analysis';
import { kindOf, kindStyle } from '../markers/kinds';
import type { Marker } from '../markers/model';
import { sourcesLine } from './sources';

export interface MarkerContext {
  speakerName(label: string): string;
  /** A time as the editor reads it (timecode or clock). */
  formatTime(seconds: number): string;
}

const pct = (x: number) => `${Math.round(x * 100)}%`;
const clamp01 = (x: number) => Math.min(1, Math.max(0, x));

function spanText(ctx: MarkerContext, start: number, end: number): string {
  return end > start ? `${ctx.formatTime(start)} – ${ctx.formatTime(end)}` : ctx.formatTime(start);
}

function lineText(ctx: MarkerContext, seg: AnalysisSegment): string {
  return `Line by ${ctx.speakerName(seg.speaker)}, ${spanText(ctx, seg.start, seg.end)}`;
}

export function conditionMarkers(intel: Intelligence, ctx: MarkerContext): Marker[] {
  return intel.conditions.flatMap((c, i) => {
    const kind = kindOf('condition', c.type);
    return c.ranges.map((r, j) => ({
      id: `condition-${i}-${j}`,
      lane: 'conditions' as const,
      kind,
      start: r.start,
      end: r.end,
      label: `${kindStyle(kind).label} (recording condition)`,
      detail: [
        spanText(ctx, r.start, r.end),
        c.evidence,
        `Severity ${pct(c.severity)}`,
        sourcesLine([c.source]),
      ],
      severity: c.severity,
    }));
  });
}

/** A marker over one line's span, in a per-line lane (quality issues, delivery labels). */
function lineMarker(
  seg: AnalysisSegment,
  ctx: MarkerContext,
  m: { id: string; lane: 'issues' | 'delivery'; kind: string; detail: string[]; severity: number },
): Marker {
  return {
    ...m,
    start: seg.start,
    end: seg.end,
    label: kindStyle(m.kind).label,
    detail: [lineText(ctx, seg), ...m.detail],
    segmentId: seg.id,
  };
}

export function issueMarkers(intel: Intelligence, ctx: MarkerContext): Marker[] {
  return intel.segments.flatMap((seg) =>
    seg.quality.issues.map((issue, k) =>
      lineMarker(seg, ctx, {
        id: `issue-${seg.id}-${k}`,
        lane: 'issues',
        kind: kindOf('issue', issue.type),
        detail: [issue.evidence, `Severity ${pct(issue.severity)}`, sourcesLine([issue.source])],
        severity: issue.severity,
      }),
    ),
  );
}

function audienceMarker(e: AudienceEvent, i: number, ctx: MarkerContext): Marker {
  const kind = kindOf('event', e.type);
  const floor = e.speaker ? `${ctx.speakerName(e.speaker)} had the floor` : null;
  return {
    id: `event-${i}`,
    lane: 'events',
    kind,
    start: e.start,
    end: e.end,
    label: kindStyle(kind).label,
    detail: [
      spanText(ctx, e.start, e.end),
      `Confidence ${pct(e.confidence)}`,
      e.during_speech ? 'Under speech' : 'Between lines',
      ...(floor ? [floor] : []),
      sourcesLine(e.sources),
    ],
    severity: clamp01(e.confidence),
  };
}

function paceShiftMarker(e: PaceShiftEvent, i: number, ctx: MarkerContext): Marker {
  const change = `${Math.round(Math.abs(e.change) * 100)}% ${e.direction}`;
  return {
    id: `event-${i}`,
    lane: 'events',
    kind: kindOf('event', 'pace_shift'),
    start: e.start,
    end: e.end,
    at: e.at,
    label: `Pace shift: ${change}`,
    detail: [
      `${ctx.speakerName(e.speaker)} speaks ${change} from ${ctx.formatTime(e.at)}`,
      `Compares ${spanText(ctx, e.start, e.at)} with ${spanText(ctx, e.at, e.end)}`,
      sourcesLine([e.source]),
    ],
    // A 50% change of pace is as strong as the marker gets.
    severity: clamp01(Math.abs(e.change) / 0.5),
  };
}

export function eventMarkers(intel: Intelligence, ctx: MarkerContext): Marker[] {
  return intel.events.map((e, i) =>
    e.type === 'pace_shift' ? paceShiftMarker(e, i, ctx) : audienceMarker(e, i, ctx),
  );
}

/** What a moment's score means for each type (the schema's Moment.score). */
const SCORE_NAMES: Record<string, string> = {
  select: 'Take quality',
  unusable: 'Severity',
  trim: 'Certainty',
};

export function momentMarkers(intel: Intelligence, ctx: MarkerContext): Marker[] {
  return intel.moments.map((m) => {
    const kind = kindOf('moment', m.type);
    return {
      id: `moment-${m.id}`,
      lane: 'moments' as const,
      kind,
      start: m.start,
      end: m.end,
      label: kindStyle(kind).label,
      detail: [
        `${ctx.speakerName(m.speaker)}, ${spanText(ctx, m.start, m.end)}`,
        m.reason,
        ...(m.text ? [`“${m.text}”`] : []),
        `${SCORE_NAMES[m.type] ?? 'Score'} ${pct(m.score)}`,
      ],
      severity: clamp01(m.score),
      ...(m.segment_ids.length === 1 ? { segmentId: m.segment_ids[0] } : {}),
    };
  });
}

export function deliveryMarkers(intel: Intelligence, ctx: MarkerContext): Marker[] {
  return intel.segments.flatMap((seg) => {
    const labels = new Map<string, Source>();
    for (const label of seg.perception?.delivery ?? []) labels.set(label, seg.perception!.source);
    for (const flag of seg.delivery?.flags ?? [])
      if (!labels.has(flag.type)) labels.set(flag.type, flag.source);
    return [...labels].map(([label, source]) =>
      lineMarker(seg, ctx, {
        id: `delivery-${seg.id}-${label}`,
        lane: 'delivery',
        kind: kindOf('delivery', label),
        detail: [
          ...(seg.perception?.note ? [seg.perception.note] : []),
          ...(seg.delivery ? [`Delivery ${seg.delivery.label}, score ${pct(seg.delivery.score)}`] : []),
          sourcesLine([source]),
        ],
        severity: seg.delivery ? clamp01(1 - seg.delivery.score) : 0.5,
      }),
    );
  });
}

/** Every marker the document places on the timeline. */
export function analysisMarkers(intel: Intelligence, ctx: MarkerContext): Marker[] {
  return [
    ...conditionMarkers(intel, ctx),
    ...issueMarkers(intel, ctx),
    ...eventMarkers(intel, ctx),
    ...momentMarkers(intel, ctx),
    ...deliveryMarkers(intel, ctx),
  ];
}
