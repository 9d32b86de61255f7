import type { Span } from '../types';
import type { ScriptWord } from './script-text';

/**
 * An aligned script made into transcript lines: speakers (the script's names, or diarization's where it
 * names none), times kept in order, lines cut at the script's own breaks.
 */

export interface SpeakerSpan extends Span {
  speaker: string;
}

/**
 * For each word, the speaker of the span (a recognised line) it overlaps most; a word over no span takes
 * the nearest one's. `spans` must be sorted by start. Null only when there are no spans at all.
 */
export function speakersByOverlap(words: readonly Span[], spans: readonly SpeakerSpan[]): Array<string | null> {
  const out: Array<string | null> = [];
  let p = 0;
  for (const w of words) {
    while (p < spans.length && spans[p]!.end <= w.start) p++;
    let best: string | null = null;
    let most = 0;
    for (let q = p; q < spans.length && spans[q]!.start < w.end; q++) {
      const overlap = Math.min(w.end, spans[q]!.end) - Math.max(w.start, spans[q]!.start);
      if (overlap > most) {
        most = overlap;
        best = spans[q]!.speaker;
      }
    }
    if (best === null && spans.length) {
      const before = spans[Math.min(p, spans.length) - 1];
      const after = spans[p];
      const mid = (w.start + w.end) / 2;
      if (!after || (before && mid - before.end <= after.start - mid)) best = before!.speaker;
      else best = after.speaker;
    }
    out.push(best);
  }
  return out;
}

/**
 * Speaker labels for the script's names. A name that is a label (`S2`) or that `fixed` maps (a project
 * speaker's name) keeps that label. The others are given, one each, the diarization label their words
 * overlap longest (largest overlaps first), so a script's ADA takes the voice diarization heard on her lines;
 * a name left without one gets the next free `S<n>`.
 */
export function labelsForNames(
  names: readonly string[],
  words: ReadonlyArray<{ name: string; diarized: string | null; seconds: number }>,
  fixed: ReadonlyMap<string, string>,
  existing: readonly string[],
): Map<string, string> {
  const out = new Map<string, string>();
  const taken = new Set<string>();
  for (const name of names) {
    const label = /^S\d{1,4}$/.test(name) ? name : fixed.get(name);
    if (label) {
      out.set(name, label);
      taken.add(label);
    }
  }
  const weight = new Map<string, number>();
  for (const w of words) {
    if (out.has(w.name) || !w.diarized) continue;
    const key = `${w.name}\u0000${w.diarized}`;
    weight.set(key, (weight.get(key) ?? 0) + w.seconds);
  }
  const pairs = [...weight].map(([key, seconds]) => {
    const [name, label] = key.split('\u0000') as [string, string];
    return { name, label, seconds };
  });
  pairs.sort((x, y) => y.seconds - x.seconds);
  for (const p of pairs) {
    if (out.has(p.name) || taken.has(p.label)) continue;
    out.set(p.name, p.label);
    taken.add(p.label);
  }
  let next = Math.max(0, ...[...existing, ...taken].map((l) => Number(/^S(\d+)$/.exec(l)?.[1] ?? 0))) + 1;
  for (const name of names) if (!out.has(name)) out.set(name, `S${next++}`);
  return out;
}

/** Times made strictly ordered: each word starts at or after the previous one's end and lasts ≥ 0. */
export function orderTimes<T extends Span>(words: T[], duration: number): T[] {
  let at = 0;
  for (const w of words) {
    const start = Math.min(duration, Math.max(at, w.start));
    const end = Math.min(duration, Math.max(start, w.end));
    w.start = start;
    w.end = end;
    at = end;
  }
  return words;
}

/** `texts` spread over `span` in proportion to their letters (a stretch the aligner could not place). */
export function distribute(texts: readonly string[], span: Span): Span[] {
  const letters = texts.map((t) => Math.max(1, t.replace(/[^\p{L}\p{N}]/gu, '').length));
  const total = letters.reduce((a, b) => a + b, 0);
  const length = Math.max(0, span.end - span.start);
  let at = span.start;
  return letters.map((n) => {
    const s = { start: at, end: at + (length * n) / total };
    at = s.end;
    return s;
  });
}

export interface LineOptions {
  /** A silence this long between words starts a new line, seconds. Default 1. */
  pause?: number;
  /** Longest line in characters; a longer one is cut before the word that would pass it. Default 200. */
  maxChars?: number;
}

/**
 * Where lines start (word indices, the first is 0): at each script line, after each sentence end, where
 * the speaker changes, at long pauses, and before a line would pass `maxChars`.
 */
export function lineStarts(words: ReadonlyArray<Pick<ScriptWord, 'text' | 'line' | 'sentenceEnd'> & Span & { speaker: string }>, options: LineOptions = {}): number[] {
  const pause = options.pause ?? 1;
  const maxChars = options.maxChars ?? 200;
  const starts: number[] = [];
  let chars = 0;
  words.forEach((w, i) => {
    const prev = words[i - 1];
    const cut =
      !prev ||
      w.line !== prev.line ||
      prev.sentenceEnd ||
      w.speaker !== prev.speaker ||
      w.start - prev.end >= pause ||
      chars + 1 + w.text.length > maxChars;
    if (cut) {
      starts.push(i);
      chars = w.text.length;
    } else chars += 1 + w.text.length;
  });
  return starts;
}
