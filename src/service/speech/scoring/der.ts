import { munkres } from 'munkres';
import type { Span } from '../types';

/** One speaker turn, as in an RTTM `SPEAKER` line. */
export interface LabeledTurn extends Span {
  speaker: string;
}

export interface RttmTurn extends LabeledTurn {
  file: string;
}

export interface UemSpan extends Span {
  file: string;
}

/** Parses the `SPEAKER` lines of an RTTM file (other line types and comments are skipped). */
export function parseRttm(text: string): RttmTurn[] {
  const turns: RttmTurn[] = [];
  for (const line of text.split(/\r?\n/)) {
    const f = line.trim().split(/\s+/);
    if (f[0] !== 'SPEAKER' || f.length < 8) continue;
    const start = Number(f[3]);
    const duration = Number(f[4]);
    if (!Number.isFinite(start) || !Number.isFinite(duration)) throw new Error(`Bad RTTM line: ${line}`);
    turns.push({ file: f[1]!, start, end: start + duration, speaker: f[7]! });
  }
  return turns;
}

/** Parses a UEM file: `file channel start end` per line. */
export function parseUem(text: string): UemSpan[] {
  const spans: UemSpan[] = [];
  for (const line of text.split(/\r?\n/)) {
    const f = line.trim().split(/\s+/);
    if (f.length < 4 || line.trim().startsWith('#')) continue;
    const start = Number(f[2]);
    const end = Number(f[3]);
    if (!Number.isFinite(start) || !Number.isFinite(end)) throw new Error(`Bad UEM line: ${line}`);
    spans.push({ file: f[0]!, start, end });
  }
  return spans;
}

/** Formats turns as RTTM lines. */
export function formatRttm(file: string, turns: LabeledTurn[]): string {
  return turns
    .map(
      (t) =>
        `SPEAKER ${file} 1 ${t.start.toFixed(3)} ${(t.end - t.start).toFixed(3)} <NA> <NA> ${t.speaker} <NA> <NA>`,
    )
    .join('\n');
}

export interface DerCounts {
  /** Seconds of reference speech in the scored region (overlaps count once per speaker). */
  reference: number;
  missed: number;
  falseAlarm: number;
  confusion: number;
  /** Seconds of audio scored (UEM less the collars). */
  scored: number;
}

export interface DerResult extends DerCounts {
  /** (missed + falseAlarm + confusion) / reference; 0 when there is no reference speech and no error. */
  der: number;
  /** Optimal one-to-one map from hypothesis to reference labels (unmapped hypothesis labels are absent). */
  mapping: Record<string, string>;
}

export interface DerOptions {
  /** Regions to score; without one, the reference's extent (first start to last end). */
  uem?: Span[];
  /** Half-width in seconds of the no-score zone around every reference boundary (default 0.25). */
  collar?: number;
}

function mergeSpans(spans: Span[]): Span[] {
  const sorted = spans.filter((s) => s.end > s.start).sort((a, b) => a.start - b.start);
  const out: Span[] = [];
  for (const s of sorted) {
    const last = out[out.length - 1];
    if (last && s.start <= last.end) last.end = Math.max(last.end, s.end);
    else out.push({ start: s.start, end: s.end });
  }
  return out;
}

/** Subtracts the union of `holes` from the union of `base`. */
function subtractSpans(base: Span[], holes: Span[]): Span[] {
  const h = mergeSpans(holes);
  const out: Span[] = [];
  for (const b of mergeSpans(base)) {
    let cursor = b.start;
    for (const x of h) {
      if (x.end <= cursor || x.start >= b.end) continue;
      if (x.start > cursor) out.push({ start: cursor, end: x.start });
      cursor = Math.max(cursor, x.end);
    }
    if (cursor < b.end) out.push({ start: cursor, end: b.end });
  }
  return out;
}

/**
 * Diarization error rate of one file, computed exactly on segment boundaries (no frame rounding):
 * overlapped speech is scored (each extra reference speaker unmatched by a hypothesis speaker is missed,
 * each extra hypothesis speaker a false alarm), and confusion uses the optimal one-to-one speaker map
 * (Hungarian algorithm on co-occurrence time), as NIST md-eval and pyannote.metrics do.
 */
export function diarizationError(
  reference: LabeledTurn[],
  hypothesis: LabeledTurn[],
  options: DerOptions = {},
): DerResult {
  const collar = options.collar ?? 0.25;
  let uem = options.uem;
  if (!uem) {
    uem = reference.length
      ? [{ start: Math.min(...reference.map((t) => t.start)), end: Math.max(...reference.map((t) => t.end)) }]
      : [];
  }
  const noScore: Span[] = [];
  if (collar > 0) {
    for (const t of reference) {
      noScore.push(
        { start: t.start - collar, end: t.start + collar },
        { start: t.end - collar, end: t.end + collar },
      );
    }
  }
  const scoredRegions = subtractSpans(uem, noScore);

  const refLabels = [...new Set(reference.map((t) => t.speaker))];
  const hypLabels = [...new Set(hypothesis.map((t) => t.speaker))];
  const refIndex = new Map(refLabels.map((l, i) => [l, i]));
  const hypIndex = new Map(hypLabels.map((l, i) => [l, i]));

  // Sweep over every boundary; kind 0 = scored region, 1 = reference speaker, 2 = hypothesis speaker.
  type Event = { time: number; kind: 0 | 1 | 2; who: number; delta: 1 | -1 };
  const events: Event[] = [];
  for (const s of scoredRegions)
    events.push({ time: s.start, kind: 0, who: 0, delta: 1 }, { time: s.end, kind: 0, who: 0, delta: -1 });
  for (const t of reference) {
    if (t.end <= t.start) continue;
    const who = refIndex.get(t.speaker)!;
    events.push({ time: t.start, kind: 1, who, delta: 1 }, { time: t.end, kind: 1, who, delta: -1 });
  }
  for (const t of hypothesis) {
    if (t.end <= t.start) continue;
    const who = hypIndex.get(t.speaker)!;
    events.push({ time: t.start, kind: 2, who, delta: 1 }, { time: t.end, kind: 2, who, delta: -1 });
  }
  events.sort((a, b) => a.time - b.time);

  const refCount = new Array<number>(refLabels.length).fill(0);
  const hypCount = new Array<number>(hypLabels.length).fill(0);
  const activeRef = new Set<number>();
  const activeHyp = new Set<number>();
  const overlap = refLabels.map(() => new Array<number>(hypLabels.length).fill(0));
  let scoredDepth = 0;
  const counts: DerCounts = { reference: 0, missed: 0, falseAlarm: 0, confusion: 0, scored: 0 };
  let matchable = 0;

  let previous = events[0]?.time ?? 0;
  for (const e of events) {
    const duration = e.time - previous;
    if (duration > 0 && scoredDepth > 0) {
      const nRef = activeRef.size;
      const nHyp = activeHyp.size;
      counts.scored += duration;
      counts.reference += duration * nRef;
      counts.missed += duration * Math.max(0, nRef - nHyp);
      counts.falseAlarm += duration * Math.max(0, nHyp - nRef);
      matchable += duration * Math.min(nRef, nHyp);
      for (const r of activeRef) for (const h of activeHyp) overlap[r]![h]! += duration;
    }
    previous = e.time;
    if (e.kind === 0) scoredDepth += e.delta;
    else if (e.kind === 1) {
      refCount[e.who]! += e.delta;
      if (refCount[e.who]! > 0) activeRef.add(e.who);
      else activeRef.delete(e.who);
    } else {
      hypCount[e.who]! += e.delta;
      if (hypCount[e.who]! > 0) activeHyp.add(e.who);
      else activeHyp.delete(e.who);
    }
  }

  const mapping: Record<string, string> = {};
  let correct = 0;
  if (refLabels.length && hypLabels.length) {
    const cost = overlap.map((row) => row.map((v) => -v));
    for (const [r, h] of munkres(cost)) {
      const time = overlap[r]![h]!;
      correct += time;
      if (time > 0) mapping[hypLabels[h]!] = refLabels[r]!;
    }
  }
  counts.confusion = Math.max(0, matchable - correct);
  const errors = counts.missed + counts.falseAlarm + counts.confusion;
  const der = counts.reference > 0 ? errors / counts.reference : errors > 0 ? Infinity : 0;
  return { ...counts, der, mapping };
}

/** Sums per-file counts: overall DER is total error time over total reference speech. */
export function totalDiarizationError(results: DerCounts[]): DerCounts & { der: number } {
  const sum: DerCounts = { reference: 0, missed: 0, falseAlarm: 0, confusion: 0, scored: 0 };
  for (const r of results) {
    sum.reference += r.reference;
    sum.missed += r.missed;
    sum.falseAlarm += r.falseAlarm;
    sum.confusion += r.confusion;
    sum.scored += r.scored;
  }
  const errors = sum.missed + sum.falseAlarm + sum.confusion;
  return { ...sum, der: sum.reference > 0 ? errors / sum.reference : errors > 0 ? Infinity : 0 };
}
