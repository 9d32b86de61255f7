import type { Span, Transcript, TranscriptSegment, TranscriptWord } from '../speech/types';
import { SpeakerEditError } from './speaker-edits';
import { planCorrection, spreadByWeight, writtenWords, fitAligned, type CorrectionGap, type CorrectionPlan, type PlanOptions } from './word-correction';

/**
 * Word corrections of a transcript, as pure functions: a line's new text (or a word range's), and find and
 * replace over every line. Each yields line corrections whose gaps the caller times (forced alignment,
 * transcript-edits.ts) before `applyCorrections` writes the new transcript.
 */

/** Confidence of a word the editor typed: certain, so the studio's doubtful-word shading passes over it. */
export const TYPED_WORD_CONFIDENCE = 1;

export interface LineCorrection {
  segmentIndex: number;
  /** The line's new written words. */
  next: string[];
  plan: CorrectionPlan;
  /** How the plan was made (a word range's fixed words, unchanged words released for timing). */
  options: PlanOptions;
  before: string;
  after: string;
}

/** How a gap's words were timed. */
export interface GapTiming {
  spans: Span[];
  /** True when alignment failed and the gap's time was shared by syllables. */
  interpolated: boolean;
  /** Words (gap-relative) the aligner could not decode and placed by interpolation itself (confidence 0). */
  guessed?: number[];
}

function lineText(segment: TranscriptSegment): string {
  return segment.words.length ? segment.words.map((w) => w.word.trim()).join(' ') : segment.text.trim();
}

function segmentIndex(transcript: Transcript, segmentId: number): number {
  const index = transcript.segments.findIndex((s) => s.id === segmentId);
  if (index < 0) throw new SpeakerEditError('segment_id', `No line ${segmentId} in the transcript (lines are 0–${transcript.segments.length - 1}).`);
  return index;
}

function correction(segmentIndexValue: number, segment: TranscriptSegment, next: string[], options: PlanOptions = {}): LineCorrection {
  return {
    segmentIndex: segmentIndexValue,
    next,
    options,
    plan: planCorrection(segment.words, next, segment, options),
    before: lineText(segment),
    after: next.join(' '),
  };
}

/**
 * A line's words (or the range `wordStart`…`wordEnd`, inclusive, as the reassign route counts them) become
 * `text`. Empty text deletes the range's words, but a line must keep a word: emptying a whole line is refused
 * (lines are removed by merging them into a neighbour, not by a text edit).
 */
export function correctLine(transcript: Transcript, input: { segmentId: number; text: string; wordStart?: number; wordEnd?: number }): LineCorrection {
  const index = segmentIndex(transcript, input.segmentId);
  const segment = transcript.segments[index]!;
  const n = segment.words.length;
  const typed = writtenWords(input.text);
  const whole = input.wordStart === undefined && input.wordEnd === undefined;
  if (whole) {
    if (!typed.length) throw new SpeakerEditError('text', 'A line needs words; to delete some, give their range (word_start, word_end) and empty text.');
    return correction(index, segment, typed);
  }
  if (n === 0) throw new SpeakerEditError('word_start', 'This line has no word timings; correct the whole line.');
  const first = input.wordStart ?? 0;
  const last = input.wordEnd ?? n - 1;
  if (first < 0 || first >= n) throw new SpeakerEditError('word_start', `word_start must be a word of the line (0–${n - 1}).`);
  if (last < first || last >= n) throw new SpeakerEditError('word_end', `word_end must be between word_start and the last word (${first}–${n - 1}).`);
  const words = segment.words.map((w) => w.word.trim());
  const next = [...words.slice(0, first), ...typed, ...words.slice(last + 1)];
  if (!next.length) throw new SpeakerEditError('text', 'That would leave the line without words; a line needs at least one.');
  return correction(index, segment, next, { keepBefore: first, keepAfter: n - 1 - last });
}

export interface ReplaceQuery {
  find: string;
  replace: string;
  matchCase?: boolean;
  wholeWords?: boolean;
}

export interface ReplaceMatch {
  segment_id: number;
  /** First and last word (inclusive) the match touches. */
  word_start: number;
  word_end: number;
  /** Those words now, and what they become. */
  before: string;
  after: string;
}

const isWordChar = (c: string | undefined) => c !== undefined && /[\p{L}\p{N}']/u.test(c);
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Character ranges of `find` in a line's text (its words joined by single spaces), left to right, not overlapping. */
function occurrences(text: string, query: ReplaceQuery): Array<[number, number]> {
  const pattern = query.find.trim().split(/\s+/).map(escape).join(' ');
  const re = new RegExp(pattern, query.matchCase ? 'gu' : 'giu');
  const out: Array<[number, number]> = [];
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const start = m.index;
    const end = start + m[0].length;
    if (m[0].length === 0) {
      re.lastIndex++;
      continue;
    }
    if (query.wholeWords && (isWordChar(text[start - 1]) || isWordChar(text[end]))) {
      re.lastIndex = start + 1;
      continue;
    }
    out.push([start, end]);
  }
  return out;
}

/** Every match of the query in the transcript, line by line, with what each touched run of words becomes. */
export function findMatches(transcript: Transcript, query: ReplaceQuery): ReplaceMatch[] {
  const matches: ReplaceMatch[] = [];
  for (const segment of transcript.segments) {
    const words = segment.words.map((w) => w.word.trim());
    const text = words.join(' ');
    const starts: number[] = [];
    let at = 0;
    for (const w of words) {
      starts.push(at);
      at += w.length + 1;
    }
    for (const [a, b] of occurrences(text, query)) {
      const first = starts.findLastIndex((s) => s <= a);
      const last = starts.findLastIndex((s) => s < b);
      const from = starts[first]!;
      const to = starts[last]! + words[last]!.length;
      matches.push({
        segment_id: segment.id,
        word_start: first,
        word_end: last,
        before: text.slice(from, to),
        after: (text.slice(from, a) + query.replace + text.slice(b, to)).trim().replace(/\s+/g, ' '),
      });
    }
  }
  return matches;
}

/** The line corrections that replace every match (lines without a match are left alone). */
export function replaceCorrections(transcript: Transcript, query: ReplaceQuery): LineCorrection[] {
  const out: LineCorrection[] = [];
  transcript.segments.forEach((segment, index) => {
    const text = segment.words.map((w) => w.word.trim()).join(' ');
    const found = occurrences(text, query);
    if (!found.length) return;
    let replaced = '';
    let at = 0;
    for (const [a, b] of found) {
      replaced += text.slice(at, a) + query.replace;
      at = b;
    }
    replaced += text.slice(at);
    const next = writtenWords(replaced);
    if (!next.length) throw new SpeakerEditError('replace', `Line ${segment.id} would be left without words; a line needs at least one.`);
    if (next.join(' ') !== text) out.push(correction(index, segment, next));
  });
  return out;
}

/**
 * The correction planned again with the unchanged words either side of the given gaps released, so they are
 * aligned together with the gap's words over a wider stretch (null when those gaps have no such word left).
 * For gaps whose alignment failed: an unchanged word the longest common subsequence matched to the wrong
 * place ("the" heard inside "apart") leaves a window the new words are not in.
 */
export function widened(transcript: Transcript, c: LineCorrection, failed: readonly CorrectionGap[]): LineCorrection | null {
  const release = new Set(c.options.release ?? []);
  const before = release.size;
  for (const gap of failed) {
    if (gap.before !== null) release.add(gap.before);
    if (gap.after !== null) release.add(gap.after);
  }
  if (release.size === before) return null;
  return correction(c.segmentIndex, transcript.segments[c.segmentIndex]!, c.next, { ...c.options, release: [...release] });
}

/** What the aligner is asked for a gap: the gap's words with the kept words around it as context, over their audio. */
export function alignmentRequest(segment: TranscriptSegment, c: LineCorrection, gap: CorrectionGap, pad = 0.05): { text: string; audio: Span; lead: number } {
  const old = segment.words;
  const before = gap.before !== null ? old[c.plan.keptFrom[gap.before]!]! : null;
  const after = gap.after !== null ? old[c.plan.keptFrom[gap.after]!]! : null;
  const words = [...(before ? [c.next[gap.before!]!] : []), ...c.next.slice(gap.from, gap.to), ...(after ? [c.next[gap.after!]!] : [])];
  return {
    text: words.join(' '),
    audio: { start: Math.max(0, (before?.start ?? gap.window.start) - pad), end: (after?.end ?? gap.window.end) + pad },
    lead: before ? 1 : 0,
  };
}

/** A gap's timing from the aligner's words for `alignmentRequest`'s text (null: alignment failed). */
export function gapTiming(c: LineCorrection, gap: CorrectionGap, aligned: Array<Span & { confidence: number }> | null, lead: number): GapTiming {
  const count = gap.to - gap.from;
  const own = aligned ? aligned.slice(lead, lead + count) : null;
  const spans = fitAligned(own && own.length === count ? own : null, count, gap.window);
  if (!spans) return { spans: spreadByWeight(c.next.slice(gap.from, gap.to), gap.window), interpolated: true };
  const guessed = own!.flatMap((w, k) => (w.confidence === 0 ? [k] : []));
  return { spans, interpolated: false, ...(guessed.length ? { guessed } : {}) };
}

/** Per-line record of a correction, for the revision's edit: which words were timed how. */
export interface CorrectionRecord {
  segment_id: number;
  before: string;
  after: string;
  /** New word indices timed by forced alignment. */
  aligned: number[];
  /** New word indices whose time was shared out by syllables (alignment failed, or the aligner could not decode the word). */
  interpolated: number[];
  /** Unchanged words timed again because the new words had no room between them. */
  retimed_unchanged: number[];
}

/** Writes the corrections into the transcript; `timings[k][g]` times gap g of correction k. Segment ids stay. */
export function applyCorrections(transcript: Transcript, corrections: readonly LineCorrection[], timings: readonly GapTiming[][]): { transcript: Transcript; records: CorrectionRecord[] } {
  const segments = [...transcript.segments];
  const records: CorrectionRecord[] = [];
  corrections.forEach((c, k) => {
    const segment = segments[c.segmentIndex]!;
    const words: TranscriptWord[] = c.plan.words.map((w, j) => (w ? { ...w, speaker: segment.words[c.plan.keptFrom[j]!]!.speaker } : null)) as TranscriptWord[];
    const aligned: number[] = [];
    const interpolated: number[] = [];
    c.plan.gaps.forEach((gap, g) => {
      const timing = timings[k]![g]!;
      for (let j = gap.from; j < gap.to; j++) {
        const span = timing.spans[j - gap.from]!;
        // An unchanged word retimed for room keeps its own confidence and speaker.
        const released = c.plan.releasedFrom[j];
        const kept = released !== null && released !== undefined ? segment.words[released] : undefined;
        words[j] = {
          word: c.next[j]!,
          start: span.start,
          end: span.end,
          confidence: kept ? kept.confidence : TYPED_WORD_CONFIDENCE,
          speaker: kept?.speaker ?? segment.speaker,
        };
        if (timing.interpolated || timing.guessed?.includes(j - gap.from)) interpolated.push(j);
        else aligned.push(j);
      }
    });
    // The editor's words are what was said: speaker adaptation learns from them (speakers/adaptation-job.ts).
    segments[c.segmentIndex] = { ...segment, words, text: words.map((w) => w.word).join(' '), corrected: true };
    records.push({ segment_id: segment.id, before: c.before, after: c.after, aligned, interpolated, retimed_unchanged: c.plan.retimedKept });
  });
  return { transcript: { ...transcript, segments, text: segments.map((s) => s.text).join(' ') }, records };
}

/** The line `segmentId` confirmed by the editor (its whole text saved): every word of it is as said. */
export function confirmLine(transcript: Transcript, segmentId: number): Transcript {
  return { ...transcript, segments: transcript.segments.map((s) => (s.id === segmentId ? { ...s, confirmed: true as const } : s)) };
}
