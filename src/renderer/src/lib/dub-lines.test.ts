import { describe, expect, it } from 'vitest';
import { clampRetime, dubActionForKey, editFailureMessage, fitAdvice, lineAt, lineNumbers, makeRoom, wordIndexAtCaret, neighbour, nextLeft, retimeRoom, snapToFrame, splitProblem } from './dub-lines';
import type { Timebase } from './timecode';

// Listed out of id order on purpose: line 4 was split off line 1 and sits between 1 and 2.
const lines = [
  { id: 1, start: 1, end: 2, review_status: 'approved' },
  { id: 2, start: 3, end: 4.5, review_status: 'todo' },
  { id: 3, start: 6, end: 8, review_status: 'needs_changes' },
  { id: 4, start: 2, end: 2.8, review_status: 'approved' },
];
const ntsc: Timebase = { frameRate: '29.97', dropFrame: true, startTimecode: null };

describe('retiming a line by dragging', () => {
  it('keeps a line between its neighbours in time, not in id order', () => {
    expect(retimeRoom(lines, 4, 10)).toEqual({ min: 2, max: 3 });
    expect(retimeRoom(lines, 1, 10)).toEqual({ min: 0, max: 2 });
    expect(retimeRoom(lines, 3, 10)).toEqual({ min: 4.5, max: 10 });
    expect(retimeRoom(lines, 9, 10)).toBeNull();
  });

  it('moves one edge, clamped to the neighbour and a minimum length, on 25 fps frames without a timebase', () => {
    expect(clampRetime(lines, 2, { start: 3, end: 5.33 }, 'end', 10)).toEqual({ start: 3, end: 5.32 });
    expect(clampRetime(lines, 2, { start: 3, end: 7 }, 'end', 10)).toEqual({ start: 3, end: 6 });
    expect(clampRetime(lines, 2, { start: 2.5, end: 4.5 }, 'start', 10)).toEqual({ start: 2.8, end: 4.5 });
    // Past its own end: it keeps at least 0.05 s, on the frame (4.44 s) before that limit.
    expect(clampRetime(lines, 2, { start: 5, end: 4.5 }, 'start', 10)).toEqual({ start: 4.44, end: 4.5 });
  });

  it('moves the whole line keeping its length, stopped by the neighbours', () => {
    expect(clampRetime(lines, 2, { start: 3.5, end: 5 }, undefined, 10)).toEqual({ start: 3.52, end: 5.02 });
    expect(clampRetime(lines, 2, { start: 5.5, end: 7 }, undefined, 10)).toEqual({ start: 4.5, end: 6 });
    expect(clampRetime(lines, 2, { start: 1, end: 2.5 }, undefined, 10)).toEqual({ start: 2.8, end: 4.3 });
    // No room to move a line that fills its gap.
    expect(clampRetime([{ id: 1, start: 0, end: 1 }, { id: 2, start: 1, end: 2 }, { id: 3, start: 2, end: 3 }], 2, { start: 1.5, end: 2.5 }, undefined, 3)).toEqual({ start: 1, end: 2 });
  });

  it('snaps to the timebase frames (29.97 drop frame: 1001/30000 s)', () => {
    const frame = 1001 / 30000;
    expect(snapToFrame(10 * frame + 0.004, ntsc)).toBeCloseTo(10 * frame, 9);
    const moved = clampRetime(lines, 3, { start: 6, end: 7.5 }, 'end', 10, ntsc)!;
    expect(moved.end / frame).toBeCloseTo(Math.round(7.5 / frame), 4);
  });
});

describe('lines under the playhead and in review order', () => {
  it('finds the line under the playhead and its neighbours in time', () => {
    expect(lineAt(lines, 2.5)?.id).toBe(4);
    expect(lineAt(lines, 2.8)).toBeUndefined();
    expect(neighbour(lines, 1, 1)?.id).toBe(4);
    expect(neighbour(lines, 4, 1)?.id).toBe(2);
    expect(neighbour(lines, 1, -1)).toBeUndefined();
  });

  it('goes to the next line not approved, wrapping round', () => {
    expect(nextLeft(lines, 1)?.id).toBe(2);
    expect(nextLeft(lines, 2)?.id).toBe(3);
    expect(nextLeft(lines, 3)?.id).toBe(2);
    expect(nextLeft(lines, null)?.id).toBe(2);
    expect(nextLeft(lines.map((l) => ({ ...l, review_status: 'approved' })), 2)).toBeUndefined();
  });

  it('splits only strictly inside a line', () => {
    expect(splitProblem(lines[1], 3.7)).toBeNull();
    expect(splitProblem(lines[1], 3)).toMatch(/inside line 2/);
    expect(splitProblem(undefined, 5)).toMatch(/not on a line/);
  });
});

describe('fit advice for a line that did not fit', () => {
  const render = (synthesized: number, slot: [number, number], flags = ['does_not_fit' as const]) => ({
    flags: [...flags],
    synthesized_duration: synthesized,
    slot: { start: slot[0], end: slot[1] },
  });
  it('names the speed that makes the reading fit its slot, when the API allows it', () => {
    expect(fitAdvice(render(2.2, [1, 3]))).toEqual({ kind: 'faster', speed: 1.1 });
    expect(fitAdvice(render(2.01, [1, 3]))).toEqual({ kind: 'faster', speed: 1.01 });
    expect(fitAdvice(render(3.2, [1, 3]))).toEqual({ kind: 'too_long', needed: 1.6 });
    expect(fitAdvice(render(2.2, [1, 3], []))).toEqual({ kind: 'fits' });
    expect(fitAdvice(null)).toEqual({ kind: 'fits' });
  });
});

describe('the dub view keys', () => {
  it('maps its own keys and leaves the rest (and modified keys) to the editor map', () => {
    expect(dubActionForKey({ key: 'a' })).toBe('approve-next');
    expect(dubActionForKey({ key: 'N', shiftKey: true })).toBe('needs-changes');
    expect(dubActionForKey({ key: 's' })).toBe('split');
    expect(dubActionForKey({ key: 'm' })).toBe('merge');
    expect(dubActionForKey({ key: 'ArrowDown' })).toBe('next-line');
    expect(dubActionForKey({ key: 'ArrowUp' })).toBe('previous-line');
    expect(dubActionForKey({ key: 'a', ctrlKey: true })).toBeNull();
    expect(dubActionForKey({ key: 'j' })).toBeNull();
  });
});

describe('a refused line edit', () => {
  it('says the lines changed elsewhere on 404/409 and quotes the text that was not saved', () => {
    const gone = editFailureMessage('Saving line 7', 404, 'Line not found.', 'We leave at dawn.');
    expect(gone).toBe(
      'Saving line 7 failed: Line not found. The lines changed since this view read them (in another window or through the API); they have been reloaded. Your text was not saved: “We leave at dawn.”.',
    );
    expect(editFailureMessage('Undo', 409, 'The lines of edit 3 have changed since; it cannot be undone')).toMatch(/cannot be undone\. The lines changed since/);
    expect(editFailureMessage('Retiming line 2', 422, 'end: The line would overlap line 3')).toBe('Retiming line 2 failed: end: The line would overlap line 3.');
  });
});

describe('making room for a line that did not fit', () => {
  const render = { flags: ['does_not_fit' as const], slot: { start: 3, end: 5.9 }, overflow: 1.1, line_start: 3, line_end: 4.5 };
  it('ends the line where its reading ended and starts the next line there', () => {
    expect(makeRoom({ id: 2, start: 3, end: 4.5, render }, lines, 10)).toEqual({ end: 7, next: { id: 3, start: 7 } });
    // The next line already starts after it: only the line's end moves.
    expect(makeRoom({ id: 2, start: 3, end: 4.5, render: { ...render, overflow: 0.05 } }, lines, 10)).toEqual({ end: 5.95, next: null });
  });
  it('refuses what would leave the next line too short, pass the dub end, or use a stale rendering', () => {
    expect(makeRoom({ id: 2, start: 3, end: 4.5, render: { ...render, overflow: 2.1 } }, lines, 10)).toBeNull();
    expect(makeRoom({ id: 3, start: 6, end: 8, render: { ...render, slot: { start: 6, end: 9.9 }, line_start: 6, line_end: 8 } }, lines, 10)).toBeNull();
    expect(makeRoom({ id: 2, start: 3, end: 4.4, render }, lines, 10)).toBeNull();
    expect(makeRoom({ id: 2, start: 3, end: 4.5, render: { ...render, flags: [] } }, lines, 10)).toBeNull();
  });
});

describe('splitting at the text caret', () => {
  it('counts the words before the caret, a word cut by the caret staying in the first part', () => {
    const text = 'We leave at dawn.';
    expect(wordIndexAtCaret(text, 2)).toBe(1); // "We|"
    expect(wordIndexAtCaret(text, 8)).toBe(2); // "We leave|"
    expect(wordIndexAtCaret(text, 9)).toBe(2); // "We leave |at"
    expect(wordIndexAtCaret(text, 5)).toBe(2); // "We le|ave"
    expect(wordIndexAtCaret(text, 0)).toBeNull();
    expect(wordIndexAtCaret(text, text.length)).toBeNull();
    expect(wordIndexAtCaret('  Hello  ', 4)).toBeNull();
  });
});

describe('line numbers', () => {
  it('numbers lines by their position in time, whatever their ids', () => {
    // Line 4 was split off line 1: it reads as line 2, and lines 2 and 3 as 3 and 4.
    expect([...lineNumbers(lines)].sort((a, b) => a[1] - b[1])).toEqual([
      [1, 1],
      [4, 2],
      [2, 3],
      [3, 4],
    ]);
    expect(lineNumbers([]).size).toBe(0);
  });

  it('names the line by its number where a split cannot be made', () => {
    expect(splitProblem(lines[1], 3, 3)).toMatch(/inside line 3 to split/);
  });
});
