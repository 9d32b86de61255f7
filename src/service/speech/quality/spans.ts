import type { Span } from '../types';

/** Span arithmetic in seconds, and the sample ranges they cover. */

/** Sample indices [from, to) of a span, clamped to a signal of `length` samples. */
export function sampleRange(span: Span, sampleRate: number, length: number): { from: number; to: number } {
  const from = Math.min(length, Math.max(0, Math.round(span.start * sampleRate)));
  const to = Math.min(length, Math.max(from, Math.round(span.end * sampleRate)));
  return { from, to };
}

/** Sorted, non-overlapping spans (touching or overlapping ones joined; gaps ≤ `join` seconds bridged). */
export function mergeSpans(spans: Span[], join = 0): Span[] {
  const sorted = spans.filter((s) => s.end > s.start).sort((a, b) => a.start - b.start);
  const out: Span[] = [];
  for (const s of sorted) {
    const last = out.at(-1);
    if (last && s.start <= last.end + join) last.end = Math.max(last.end, s.end);
    else out.push({ start: s.start, end: s.end });
  }
  return out;
}

/** The parts of `within` not covered by `spans` widened by `margin` seconds on each side. */
export function complement(spans: Span[], within: Span, margin = 0): Span[] {
  const out: Span[] = [];
  let cursor = within.start;
  for (const s of mergeSpans(spans.map((x) => ({ start: x.start - margin, end: x.end + margin })))) {
    if (s.end <= cursor) continue;
    if (s.start >= within.end) break;
    if (s.start > cursor) out.push({ start: cursor, end: s.start });
    cursor = Math.max(cursor, s.end);
  }
  if (cursor < within.end) out.push({ start: cursor, end: within.end });
  return out;
}

/** The parts of `spans` inside `within`. */
export function clip(spans: Span[], within: Span): Span[] {
  const out: Span[] = [];
  for (const s of spans) {
    const start = Math.max(s.start, within.start);
    const end = Math.min(s.end, within.end);
    if (end > start) out.push({ start, end });
  }
  return out;
}

export function totalDuration(spans: Span[]): number {
  return spans.reduce((sum, s) => sum + Math.max(0, s.end - s.start), 0);
}

/** m:ss.s (h:mm:ss.s past an hour), for evidence strings. */
export function formatTime(seconds: number): string {
  const t = Math.max(0, seconds);
  const h = Math.floor(t / 3600);
  const m = Math.floor((t % 3600) / 60);
  const s = (t % 60).toFixed(1).padStart(4, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

/** "0:01.2–0:04.0, 0:10.0–0:12.5" (at most `max` ranges, then "and N more"). */
export function formatRanges(spans: Span[], max = 4): string {
  const shown = spans.slice(0, max).map((s) => `${formatTime(s.start)}–${formatTime(s.end)}`);
  if (spans.length > max) shown.push(`and ${spans.length - max} more`);
  return shown.join(', ');
}

/** Rounds for JSON (values are measurements, not more precise than this). */
export function round(value: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
