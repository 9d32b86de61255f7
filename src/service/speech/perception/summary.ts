import type { AnalysisSegment, AnalysisSummary, AudienceEvent, Condition, DeliveryLabel, Moment, SpeakerProfile, WatchOut } from '../../../shared/schemas/analysis';
import { clock, clockRange } from './clock';

/**
 * The written summary (README "Summary"): deterministic sentences built only from values in the document —
 * durations, counts, baselines, distributions, moments and conditions — so every claim can be traced.
 */
export const MERGE_GAP = 0.5;
export const RANGES_IN_TEXT = 6;
export const QUOTE_WORDS = 12;
/** Conditions under this severity are named as minor in the overview and left out of the watch-outs. */
export const WATCH_SEVERITY = 0.2;
/** Delivery problems the watch-outs list, in this order. */
export const WATCHED_LABELS: DeliveryLabel[] = ['mumbled', 'hesitant', 'rushed', 'trailing_off', 'flat', 'quiet'];

type Span = { start: number; end: number };

export interface SummaryInput {
  duration: number;
  segments: ReadonlyArray<AnalysisSegment>;
  speakers: Readonly<Record<string, SpeakerProfile>>;
  moments: ReadonlyArray<Moment>;
  conditions: ReadonlyArray<Condition>;
  events: ReadonlyArray<AudienceEvent>;
}

const r = (x: number, digits: number) => Math.round(x * 10 ** digits) / 10 ** digits;
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const human = (s: string) => s.replace(/_/g, ' ');
const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** Speaker ids in natural order (S2 before S10). */
export function bySpeaker(a: string, b: string): number {
  return a.localeCompare(b, 'en', { numeric: true });
}

/** Sorted ranges with gaps under MERGE_GAP joined. */
export function mergeRanges(ranges: ReadonlyArray<Span>): Span[] {
  const sorted = [...ranges].sort((a, b) => a.start - b.start);
  const out: Span[] = [];
  for (const x of sorted) {
    const prev = out[out.length - 1];
    if (prev && x.start <= prev.end + MERGE_GAP) prev.end = Math.max(prev.end, x.end);
    else out.push({ start: r(x.start, 3), end: r(x.end, 3) });
  }
  return out;
}

function rangesText(ranges: ReadonlyArray<Span>): string {
  const shown = ranges.slice(0, RANGES_IN_TEXT).map(clockRange).join(', ');
  return ranges.length > RANGES_IN_TEXT ? `${shown} and ${ranges.length - RANGES_IN_TEXT} more` : shown;
}

function quote(text: string): string {
  const words = text.split(/\s+/).filter(Boolean);
  return words.length > QUOTE_WORDS ? `${words.slice(0, QUOTE_WORDS).join(' ')}…` : words.join(' ');
}

function share(part: number, whole: number): string {
  return `${Math.round((part / Math.max(1e-9, whole)) * 100)}%`;
}

export function speakerSummary(speaker: string, p: SpeakerProfile, segments: ReadonlyArray<AnalysisSegment>, moments: ReadonlyArray<Moment>): string {
  const own = segments.filter((s) => s.speaker === speaker && s.delivery);
  const parts: string[] = [];
  const voice = [
    p.articulation_rate !== null ? `${p.articulation_rate.toFixed(1)} syllables/s` : null,
    p.pitch_hz !== null ? `around ${Math.round(p.pitch_hz)} Hz` : null,
    p.pitch_range_st !== null ? `with a ${p.pitch_range_st.toFixed(1)} st range` : null,
  ].filter(Boolean);
  parts.push(`${speaker} speaks for ${clock(p.talk_seconds)} in ${plural(p.turns, 'turn')}${voice.length ? `, ${voice.join(' ')}` : ''}.`);
  const top = Object.entries(p.emotions).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0];
  if (top) parts.push(`Mostly ${top[0]} (${Math.round(top[1] * 100)}% of their speech); engagement ${p.engagement.toFixed(2)}, confidence ${p.confidence.toFixed(2)}.`);
  if (own.length) {
    const fine = own.filter((s) => s.delivery!.label === 'good' || s.delivery!.label === 'great').length;
    const labels = WATCHED_LABELS.filter((l) => p.delivery_labels[l]).map((l) => `${human(l)} on ${p.delivery_labels[l]}`);
    parts.push(`Delivery good or great on ${fine} of ${plural(own.length, 'line')}${labels.length ? `; ${labels.join(', ')}` : ''}.`);
  }
  if (p.fillers_per_minute > 0) parts.push(`${p.fillers_per_minute.toFixed(1)} fillers a minute.`);
  const best = moments.filter((m) => m.type === 'select' && m.speaker === speaker).sort((a, b) => b.score - a.score || a.start - b.start)[0];
  if (best) parts.push(`Best take ${clockRange(best)}: “${quote(best.text ?? '')}”.`);
  return parts.join(' ');
}

/** A watch-out: `label` names its kind once, `detail` says how much, `text` is the whole sentence with the ranges. */
function watchOut(kind: string, label: string, detail: string, ranges: Span[]): WatchOut {
  return { kind, label, detail, ranges, text: `${label} (${detail}): ${rangesText(ranges)}.` };
}

function watchOuts(input: SummaryInput): WatchOut[] {
  const out: WatchOut[] = [];
  for (const c of [...input.conditions].sort((a, b) => b.severity - a.severity)) {
    if (c.severity < WATCH_SEVERITY) continue;
    const ranges = mergeRanges(c.ranges);
    if (!ranges.length) continue;
    out.push(watchOut(c.type, capitalise(human(c.type)), `severity ${c.severity.toFixed(2)}`, ranges));
  }
  const unusable = input.moments.filter((m) => m.type === 'unusable');
  if (unusable.length) out.push(watchOut('unusable', unusable.length === 1 ? 'Unusable line' : 'Unusable lines', String(unusable.length), mergeRanges(unusable)));
  for (const label of WATCHED_LABELS) {
    const lines = input.segments.filter((s) => s.perception?.delivery.includes(label));
    if (!lines.length) continue;
    out.push(watchOut(label, `${capitalise(human(label))} delivery`, plural(lines.length, 'line'), mergeRanges(lines)));
  }
  const trims = input.moments.filter((m) => m.type === 'trim');
  if (trims.length) out.push(watchOut('trim', 'Dead air or false starts to trim', String(trims.length), mergeRanges(trims)));
  return out;
}

export interface WrittenSummary {
  summary: AnalysisSummary;
  /** Each speaker's summary, also set on their profile. */
  speakers: Record<string, string>;
}

export function writeSummary(input: SummaryInput): WrittenSummary {
  const speakers = Object.keys(input.speakers).sort(bySpeaker);
  const lines = input.segments.filter((s) => s.delivery);
  const fine = lines.filter((s) => s.delivery!.label === 'good' || s.delivery!.label === 'great').length;
  const count = (type: string) => input.moments.filter((m) => m.type === type).length;
  const talk = speakers.reduce((s, k) => s + input.speakers[k]!.talk_seconds, 0);
  const overview: string[] = [
    `${clock(input.duration)} recording with ${plural(speakers.length, 'speaker')} over ${plural(input.segments.length, 'line')}; ${clock(talk)} of speech (${share(talk, input.duration)}).`,
  ];
  if (lines.length) {
    const by = (label: string) => lines.filter((s) => s.delivery!.label === label).length;
    overview.push(`Delivery is good or great on ${fine} of ${lines.length} lines (${by('hesitant')} hesitant, ${by('weak')} weak).`);
  }
  const serious = input.conditions.filter((c) => c.severity >= WATCH_SEVERITY).map((c) => human(c.type));
  const minor = input.conditions.filter((c) => c.severity < WATCH_SEVERITY).map((c) => human(c.type));
  if (serious.length) overview.push(`Recording conditions to check: ${serious.join(', ')}${minor.length ? ` (minor: ${minor.join(', ')})` : ''}.`);
  else overview.push(`No recording condition stands out${minor.length ? ` (minor: ${minor.join(', ')})` : ''}.`);
  const audience = new Map<string, number>();
  for (const e of input.events) audience.set(e.type, (audience.get(e.type) ?? 0) + 1);
  if (audience.size) overview.push(`Audience: ${[...audience].map(([t, n]) => `${t} ${n}`).join(', ')}.`);
  overview.push(`${plural(count('select'), 'select')}, ${plural(count('unusable'), 'unusable line')} and ${plural(count('trim'), 'trim')} suggested.`);
  const written: Record<string, string> = {};
  for (const k of speakers) written[k] = speakerSummary(k, input.speakers[k]!, input.segments, input.moments);
  const items = watchOuts(input);
  return {
    summary: {
      overview: overview.join(' '),
      speakers: speakers.map((k) => ({ speaker: k, summary: written[k]! })),
      watch_outs: items.map((w) => w.text),
      watch_out_items: items,
    },
    speakers: written,
  };
}
