/**
 * A speaker's profile numbers as the speaker panel lists them (each with its unit), the emotion shares and
 * label counts as short lists, and the summary's watch-outs with their time ranges in order. Pure.
 */
import type { AnalysisSummary, SpeakerProfile } from '../../../shared/schemas/analysis';
import { humanize } from '../markers/kinds';

export interface ProfileRow {
  /** The profile's field name. */
  key: string;
  label: string;
  text: string;
  raw: number | null;
}

const DASH = '—';

function num(x: number | null, digits: number, unit = ''): string {
  if (x === null || !Number.isFinite(x)) return DASH;
  const s = x.toFixed(digits).replace(/^-/, '−');
  return unit ? `${s} ${unit}` : s;
}

/** 754 → "12:34"; 65.4 → "1:05". */
export function talkTime(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, '0');
  return h ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}

export function profileRows(p: SpeakerProfile): ProfileRow[] {
  return [
    { key: 'talk_seconds', label: 'Talk time', text: talkTime(p.talk_seconds), raw: p.talk_seconds },
    { key: 'turns', label: 'Turns', text: String(p.turns), raw: p.turns },
    { key: 'hesitations', label: 'Hesitations', text: String(p.hesitations), raw: p.hesitations },
    {
      key: 'fillers_per_minute',
      label: 'Fillers',
      text: num(p.fillers_per_minute, 1, '/min'),
      raw: p.fillers_per_minute,
    },
    {
      key: 'articulation_rate',
      label: 'Articulation',
      text: num(p.articulation_rate, 2, 'syll/s'),
      raw: p.articulation_rate,
    },
    { key: 'pitch_hz', label: 'Pitch', text: num(p.pitch_hz, 0, 'Hz'), raw: p.pitch_hz },
    {
      key: 'pitch_range_st',
      label: 'Pitch range',
      text: num(p.pitch_range_st, 1, 'st'),
      raw: p.pitch_range_st,
    },
    { key: 'confidence', label: 'Confidence', text: num(p.confidence, 2), raw: p.confidence },
    { key: 'engagement', label: 'Engagement', text: num(p.engagement, 2), raw: p.engagement },
    { key: 'valence', label: 'Valence', text: num(p.valence, 2), raw: p.valence },
    { key: 'arousal', label: 'Arousal', text: num(p.arousal, 2), raw: p.arousal },
  ];
}

/** Emotion shares (0–1) as "calm 62%, neutral 30%, excited 8%", largest first, shares under 0.5% left out. */
export function sharesText(shares: Record<string, number>, max = 4): string {
  const items = Object.entries(shares)
    .filter(([, v]) => Number.isFinite(v) && v >= 0.005)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, max)
    .map(([k, v]) => `${humanize(k).toLowerCase()} ${Math.round(v * 100)}%`);
  return items.length ? items.join(', ') : DASH;
}

/** Counts as "hesitant 3, rushed 1", largest first; zeros left out. */
export function countsText(counts: Record<string, number>): string {
  const items = Object.entries(counts)
    .filter(([, v]) => v > 0)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([k, v]) => `${humanize(k).toLowerCase()} ${v}`);
  return items.length ? items.join(', ') : 'none';
}

export interface WatchOutRow {
  kind: string;
  text: string;
  /** The kind as the sentence names it ("Reverb") and how much ("severity 0.56"): each written once. */
  label?: string;
  detail?: string;
  ranges: { start: number; end: number }[];
}

/**
 * A watch-out's time range as a button shows it: start–end, one time for a point, and the length beside one
 * time when start and end read the same (a range shorter than what the view's clock shows).
 */
export function rangeText(format: (t: number) => string, range: { start: number; end: number }): string {
  const start = format(range.start);
  const end = format(range.end);
  if (start !== end) return `${start}–${end}`;
  const length = range.end - range.start;
  return length >= 0.05 ? `${start} (${length.toFixed(1)} s)` : start;
}

/**
 * The summary's watch-outs: the structured items (kind and ranges as numbers) when the document has them,
 * each sentence otherwise with no ranges to jump to. Ranges in time order.
 */
export function watchOutRows(summary: AnalysisSummary): WatchOutRow[] {
  const items = summary.watch_out_items ?? [];
  if (items.length) {
    return items.map((w) => ({
      kind: w.kind,
      text: w.text,
      ...(w.label ? { label: w.label, detail: w.detail } : {}),
      ranges: [...w.ranges].filter((r) => Number.isFinite(r.start)).sort((a, b) => a.start - b.start),
    }));
  }
  return summary.watch_outs.map((text) => ({ kind: '', text, ranges: [] }));
}
