/**
 * Pure helpers of the dub view's line editing and review: where a line may be retimed to, which line is
 * under the playhead or next to review, the speed a line that did not fit would need, and the view's keys.
 */
import type { DubLine, LineRender } from '../api/types';
import type { KeyLike } from './shortcuts';
import { frameDurationSeconds, type Timebase } from './timecode';

export interface TimedLine {
  id: number;
  start: number;
  end: number;
}

/** Shortest line a drag may leave (seconds). */
export const MIN_LINE_SECONDS = 0.05;

/** The speeds the per-line control offers: the API's 0.8–1.2 in steps of 0.05. */
export const LINE_SPEEDS = [0.8, 0.85, 0.9, 0.95, 1, 1.05, 1.1, 1.15, 1.2] as const;
export const LINE_SPEED_MAX = 1.2;

/** Lines in time order (the API lists them so; a split's new part has a higher id but sits in between). */
function ordered<T extends TimedLine>(lines: readonly T[]): T[] {
  return [...lines].sort((a, b) => a.start - b.start || a.id - b.id);
}

/** Where a line may lie: from the previous line's end to the next line's start (or the dub's end). */
export function retimeRoom(lines: readonly TimedLine[], id: number, duration: number): { min: number; max: number } | null {
  const list = ordered(lines);
  const i = list.findIndex((l) => l.id === id);
  if (i < 0) return null;
  return { min: list[i - 1]?.end ?? 0, max: list[i + 1]?.start ?? duration };
}

/** Nearest frame boundary of the timebase (25 fps without one). */
export function snapToFrame(seconds: number, tb: Timebase | null): number {
  const frame = frameDurationSeconds(tb);
  return Math.round(seconds / frame) * frame;
}

/**
 * A dragged region's new times, kept inside the line's room as the API requires: `side` 'start' or 'end'
 * moves that edge only (the other stays, the line keeps at least MIN_LINE_SECONDS); no side moves the whole
 * line, keeping its length. Edges snap to the timebase's frames. Null when the line is gone or cannot move.
 */
export function clampRetime(
  lines: readonly TimedLine[],
  id: number,
  proposed: { start: number; end: number },
  side: 'start' | 'end' | undefined,
  duration: number,
  tb: Timebase | null = null,
): { start: number; end: number } | null {
  const line = lines.find((l) => l.id === id);
  const room = retimeRoom(lines, id, duration);
  if (!line || !room) return null;
  const clamp = (t: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, t));
  const snapIn = (t: number, lo: number, hi: number) => {
    const snapped = snapToFrame(t, tb);
    // A frame boundary outside the room falls back to the room's own edge.
    return snapped < lo || snapped > hi ? clamp(t, lo, hi) : snapped;
  };
  let start = line.start;
  let end = line.end;
  if (side === 'start') start = snapIn(clamp(proposed.start, room.min, line.end - MIN_LINE_SECONDS), room.min, line.end - MIN_LINE_SECONDS);
  else if (side === 'end') end = snapIn(clamp(proposed.end, line.start + MIN_LINE_SECONDS, room.max), line.start + MIN_LINE_SECONDS, room.max);
  else {
    const length = line.end - line.start;
    if (length > room.max - room.min) return null;
    start = snapIn(clamp(proposed.start, room.min, room.max - length), room.min, room.max - length);
    end = start + length;
  }
  if (!(start < end)) return null;
  return { start: round6(start), end: round6(end) };
}

const round6 = (x: number) => Math.round(x * 1e6) / 1e6;

/** The line under the playhead (start inclusive, end exclusive), if any. */
export function lineAt<T extends TimedLine>(lines: readonly T[], t: number): T | undefined {
  return lines.find((l) => l.start <= t && t < l.end);
}

/** The line after (`step` 1) or before (-1) a line in time. */
export function neighbour<T extends TimedLine>(lines: readonly T[], id: number, step: 1 | -1): T | undefined {
  const list = ordered(lines);
  const i = list.findIndex((l) => l.id === id);
  return i < 0 ? undefined : list[i + step];
}

/**
 * The next line still to review after `id` (in time, wrapping round to the first), or undefined when every
 * other line is approved.
 */
export function nextLeft<T extends TimedLine & { review_status: string }>(lines: readonly T[], id: number | null): T | undefined {
  const list = ordered(lines);
  const i = id === null ? -1 : list.findIndex((l) => l.id === id);
  for (let k = 1; k <= list.length; k++) {
    const line = list[(i + k + list.length) % list.length]!;
    if (line.id !== id && line.review_status !== 'approved') return line;
  }
  return undefined;
}

/**
 * The number the studio shows for each line: its position in time order, from 1. Line ids are stable (the
 * API's), so after splits they no longer count up (1, 2, 66, 3…); a supervisor reads lines by position.
 */
export function lineNumbers(lines: readonly TimedLine[]): Map<number, number> {
  const order = [...lines].sort((a, b) => a.start - b.start || a.id - b.id);
  return new Map(order.map((l, i) => [l.id, i + 1]));
}

/** Why a split at `t` cannot be made in `line`, or null when it can (the API's rule: strictly inside). */
export function splitProblem(line: TimedLine | undefined, t: number, number = line?.id): string | null {
  if (!line) return 'The playhead is not on a line: put it inside the line to split.';
  if (!(t > line.start && t < line.end)) return `The playhead must be inside line ${number} to split it.`;
  return null;
}

/** What a line's speed control says about fitting. */
export type FitAdvice =
  | { kind: 'fits' }
  /** The line would fit at this speed (within the API's limit). */
  | { kind: 'faster'; speed: number }
  /** Not even the fastest speed makes it fit: the text must be shorter (or the slot wider). */
  | { kind: 'too_long'; needed: number };

/**
 * For a voiced line cut at the end of its slot: the speed its reading needs to fit the room the revoice
 * had (the slot, with any silence borrowed), `synthesized_duration / slot length`, rounded up to 0.01.
 */
export function fitAdvice(render: Pick<LineRender, 'flags' | 'synthesized_duration' | 'slot'> | null | undefined): FitAdvice {
  if (!render || !render.flags.includes('does_not_fit')) return { kind: 'fits' };
  const room = render.slot.end - render.slot.start;
  const needed = room > 0 ? Math.ceil((render.synthesized_duration / room) * 100 - 1e-9) / 100 : Infinity;
  return needed <= LINE_SPEED_MAX ? { kind: 'faster', speed: Math.max(0.8, needed) } : { kind: 'too_long', needed };
}

/** "1.1×", "the voice's pace" for null. */
export function speedLabel(speed: number | null): string {
  return speed === null ? 'voice’s pace' : `${speed}×`;
}

export const REVIEW_LABELS: Record<DubLine['review_status'], string> = {
  todo: 'to review',
  needs_changes: 'needs changes',
  approved: 'approved',
};

// ---- keys ----

export type DubAction = 'split' | 'merge' | 'approve-next' | 'needs-changes' | 'next-line' | 'previous-line';

export interface DubShortcutDoc {
  keys: string;
  description: string;
}

/** The dub view's own keys (beside the recording view's J/K/L, frame steps, I/O, zoom and Space). */
export const DUB_SHORTCUTS: DubShortcutDoc[] = [
  { keys: '↓ / ↑', description: 'Next / previous line (selects it and puts the playhead at its start)' },
  { keys: 'A', description: 'Approve the selected line and go to the next line left to review' },
  { keys: 'N', description: 'Mark the selected line “needs changes” and write a note' },
  { keys: 'S', description: 'Split the line under the playhead at the playhead' },
  { keys: 'Alt+S (in a line’s text)', description: 'Split the line before the word at the caret' },
  { keys: 'M', description: 'Merge the selected line with the next one' },
  { keys: 'Ctrl+Z / Ctrl+Shift+Z', description: 'Undo / redo the last line edit (text, voice, timing, speed, split, merge)' },
  { keys: 'Drag a line on the waveform', description: 'Move it; drag its left or right edge to retime its start or end (kept between its neighbours, on frames)' },
];

/** The dub view's own action for a keydown, or null (then the editor's map applies). */
export function dubActionForKey(e: KeyLike): DubAction | null {
  if (e.ctrlKey || e.metaKey || e.altKey) return null;
  switch (e.key) {
    case 'ArrowDown':
      return 'next-line';
    case 'ArrowUp':
      return 'previous-line';
    case 'a':
    case 'A':
      return 'approve-next';
    case 'n':
    case 'N':
      return 'needs-changes';
    case 's':
    case 'S':
      return 'split';
    case 'm':
    case 'M':
      return 'merge';
    default:
      return null;
  }
}

/**
 * The message of a line edit the service refused. A 404 or 409 means the lines changed since the view
 * read them (another window, or a tool using the API): the view says so and reloads them. Text the
 * supervisor typed is quoted, so a refused save never loses it silently.
 */
export function editFailureMessage(what: string, status: number, message: string, typed?: string): string {
  const stale = status === 404 || status === 409;
  const kept = typed ? ` Your text was not saved: “${typed}”.` : '';
  const reason = message.replace(/\.?$/, '.');
  return stale
    ? `${what} failed: ${reason} The lines changed since this view read them (in another window or through the API); they have been reloaded.${kept}`
    : `${what} failed: ${reason}${kept}`;
}

/** How to make room for a line that did not fit by retiming: its new end, and its next line's new start. */
export interface RoomPlan {
  end: number;
  next: { id: number; start: number } | null;
}

/**
 * Room for a voiced line that did not fit, taken from its neighbour: the line ends where its reading ended as
 * rendered (the slot's end plus what was cut), and the next line starts no earlier than that. Null when the
 * rendering is not the line's current one, or the room does not exist (the next line would be left under
 * MIN_LINE_SECONDS, or the dub ends first). The reading then fits at the stretch it had.
 */
export function makeRoom(
  line: TimedLine & { render: Pick<LineRender, 'flags' | 'slot' | 'overflow' | 'line_start' | 'line_end'> | null },
  lines: readonly TimedLine[],
  duration: number,
): RoomPlan | null {
  const r = line.render;
  if (!r || !r.flags.includes('does_not_fit') || r.line_start !== line.start || r.line_end !== line.end) return null;
  const end = round6(r.slot.end + r.overflow);
  const next = neighbour(lines, line.id, 1);
  if (!next) return end <= duration ? { end, next: null } : null;
  if (next.start >= end) return { end, next: null };
  if (end > next.end - MIN_LINE_SECONDS) return null;
  return { end, next: { id: next.id, start: end } };
}

/**
 * The API's `word_index` for a split at the text caret: the words before the caret stay in the first part (a
 * caret inside a word keeps that word there too). Null when one part would have no words.
 */
export function wordIndexAtCaret(text: string, caret: number): number | null {
  const before = text.slice(0, caret).trim().split(/\s+/).filter(Boolean).length;
  const total = text.trim().split(/\s+/).filter(Boolean).length;
  return before >= 1 && before < total ? before : null;
}
