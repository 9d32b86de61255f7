import type { ValidationIssue, WordTiming } from '../../shared/schemas';
import { DUB_LINE_TEXT_MAX } from '../../shared/schemas';
import type { LineHistoryEntry, LineRecord } from '../storage/dub-store';
import { issue } from '../errors';

/**
 * Splitting and merging dub lines, as pure functions of the lines: what the new lines are, with their
 * originals split or joined alongside so that an edit alone never makes a line need a revoice, and the
 * line(s) as they were kept in `history`.
 */


export const words = (text: string): string[] => text.split(/\s+/).filter(Boolean);

const midpoint = (w: WordTiming) => (w.start + w.end) / 2;

function snapshot(line: LineRecord): LineHistoryEntry['from'][number] {
  return {
    id: line.id,
    speaker: line.speaker,
    start: line.start,
    end: line.end,
    text: line.text,
    original_start: line.originalStart,
    original_end: line.originalEnd,
    original_text: line.originalText,
  };
}

export interface SplitRequest {
  wordIndex?: number;
  at?: number;
}

/**
 * Splits `line` before word `wordIndex` of its text and/or at time `at`. `timings` are the word timings of
 * its current text on the dub timeline (the voiced words, or the original's while the text is the
 * original), or null; given only one of word index and time, the other comes from them. The original is
 * split at the same moment (by its word timings, else at the same word index when the text is the
 * original, else in proportion to the word count), so both parts stay `original` when the line was.
 */
export function splitLine(
  line: LineRecord,
  timings: WordTiming[] | null,
  request: SplitRequest,
  newId: number,
  now: string,
): { ok: true; first: LineRecord; second: LineRecord } | { ok: false; issues: ValidationIssue[] } {
  const text = words(line.text);
  const n = text.length;
  const timed = timings && timings.length === n ? timings : null;
  let k = request.wordIndex;
  let t = request.at;
  if (k === undefined && t === undefined) return { ok: false, issues: [issue([], 'Send word_index, at, or both', 'missing', {})] };
  if (k !== undefined && !(k >= 1 && k <= n - 1)) {
    return {
      ok: false,
      issues: [issue(['word_index'], n < 2 ? 'The line has one word: it cannot be split between words' : `word_index must be 1–${n - 1} (the line has ${n} words)`, 'word_out_of_range', k, { words: n })],
    };
  }
  if (t !== undefined && !(t > line.start && t < line.end)) {
    return { ok: false, issues: [issue(['at'], `at must be inside the line (${line.start}–${line.end}, exclusive)`, 'outside_line', t, { start: line.start, end: line.end })] };
  }
  if (t === undefined) {
    if (!timed) {
      return {
        ok: false,
        issues: [issue(['word_index'], 'The line has no word timings for its current text; send `at` (the time to split at) with it', 'no_word_timings', k)],
      };
    }
    const gap = (timed[k! - 1]!.end + timed[k!]!.start) / 2;
    t = Math.min(Math.max(gap, line.start), line.end);
    if (!(t > line.start && t < line.end)) {
      return { ok: false, issues: [issue(['word_index'], 'The words before and after that point are not both inside the line; send `at` too', 'outside_line', k)] };
    }
  }
  if (k === undefined) {
    if (!timed) {
      return { ok: false, issues: [issue(['at'], 'The line has no word timings for its current text; send `word_index` (the word to split before) with it', 'no_word_timings', t)] };
    }
    k = timed.filter((w) => midpoint(w) < t!).length;
    if (k === 0 || k === n) {
      return { ok: false, issues: [issue(['at'], `No word would be ${k === 0 ? 'before' : 'after'} ${t}: split between words`, 'no_words_on_one_side', t)] };
    }
  }
  const at = t;
  // The same moment on the original's timeline (the same time unless the line was retimed).
  const span = line.end - line.start;
  const originalAt = line.originalStart + ((at - line.start) / span) * (line.originalEnd - line.originalStart);
  const original = words(line.originalText);
  const originalTimed = line.words.length === original.length && original.length > 0;
  const ko = originalTimed
    ? line.words.filter((w) => midpoint(w) < originalAt).length
    : line.text === line.originalText
      ? k
      : Math.round((k / n) * original.length);
  const entry: LineHistoryEntry = { op: 'split', at: now, from: [snapshot(line)] };
  const history = [...line.history, entry];
  const common = { speaker: line.speaker, voice: line.voice, originalVoice: line.originalVoice, speed: line.speed, guide: line.guide ?? null, reviewStatus: 'todo' as const, history, updatedAt: now, revision: line.revision };
  return {
    ok: true,
    first: {
      ...common,
      id: line.id,
      start: line.start,
      end: at,
      originalStart: line.originalStart,
      originalEnd: originalAt,
      text: text.slice(0, k).join(' '),
      originalText: original.slice(0, ko).join(' '),
      words: line.words.filter((w) => midpoint(w) < originalAt),
    },
    second: {
      ...common,
      id: newId,
      start: at,
      end: line.end,
      originalStart: originalAt,
      originalEnd: line.originalEnd,
      text: text.slice(k).join(' '),
      originalText: original.slice(ko).join(' '),
      words: line.words.filter((w) => midpoint(w) >= originalAt),
    },
  };
}

/**
 * Merges `next` into `line`: they must be neighbours in time (`next` the very next line) and have the
 * same speaker; the merged line spans both, its text and original joined, `line`'s id and voice kept.
 */
export function mergeLines(
  lines: LineRecord[],
  line: LineRecord,
  nextId: number,
  now: string,
): { ok: true; merged: LineRecord; removed: LineRecord } | { ok: false; issues: ValidationIssue[] } {
  const index = lines.findIndex((l) => l.id === line.id);
  const neighbour = lines[index + 1];
  const next = lines.find((l) => l.id === nextId);
  if (!next) return { ok: false, issues: [issue(['with'], `The dub has no line ${nextId}`, 'line_not_found', nextId)] };
  if (!neighbour || neighbour.id !== nextId) {
    return {
      ok: false,
      issues: [issue(['with'], neighbour ? `Only the next line (${neighbour.id}) can be merged into line ${line.id}` : `Line ${line.id} is the last line`, 'not_next_line', nextId, { next: neighbour?.id ?? null })],
    };
  }
  if (next.speaker !== line.speaker) {
    return {
      ok: false,
      issues: [issue(['with'], `Line ${nextId} is spoken by ${next.speaker}, line ${line.id} by ${line.speaker}: reassign one first`, 'speaker_mismatch', nextId)],
    };
  }
  const text = `${line.text} ${next.text}`;
  if (text.length > DUB_LINE_TEXT_MAX) {
    return { ok: false, issues: [issue(['with'], `The merged text would be ${text.length} characters (at most ${DUB_LINE_TEXT_MAX})`, 'text_too_long', nextId)] };
  }
  return {
    ok: true,
    removed: next,
    merged: {
      id: line.id,
      speaker: line.speaker,
      start: line.start,
      end: next.end,
      originalStart: line.originalStart,
      originalEnd: next.originalEnd,
      text,
      originalText: `${line.originalText} ${next.originalText}`.trim(),
      voice: line.voice,
      originalVoice: line.originalVoice,
      speed: line.speed,
      guide: line.guide ?? null,
      words: [...line.words, ...next.words],
      reviewStatus: 'todo',
      history: [...line.history, { op: 'merge', at: now, from: [snapshot(line), snapshot(next)] }],
      // The store gives it the revision of the write.
      revision: line.revision,
      updatedAt: now,
    },
  };
}
