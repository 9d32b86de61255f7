import { useCallback, useMemo, useRef, useState } from 'react';
import type { ApiClient } from '../api/client';
import type { LinePatch, ReviewStatus } from '../api/dub-workflow';
import { ApiError, messageOf } from '../api/errors';
import type { DubLine } from '../api/types';
import { clampRetime, editFailureMessage, lineAt, lineNumbers, neighbour, splitProblem, type RoomPlan } from '../lib/dub-lines';
import type { Timebase } from '../lib/timecode';

export interface DubEdits {
  busy: boolean;
  /** Text and/or voice of a line; false when refused (the row keeps what was typed). */
  saveLine(line: DubLine, patch: { text?: string; voice?: string | null; guide?: 'original' | null }): Promise<boolean>;
  setSpeed(line: DubLine, speed: number | null): Promise<boolean>;
  review(line: DubLine, status: ReviewStatus): Promise<DubLine | null>;
  addNote(line: DubLine, text: string): Promise<boolean>;
  retime(id: number, proposed: { start: number; end: number }, side: 'start' | 'end' | undefined, duration: number, tb: Timebase | null): Promise<void>;
  /** Retimes a line that did not fit (and its next line) by the plan of lib/dub-lines `makeRoom`: two undoable edits. */
  makeRoom(line: DubLine, plan: RoomPlan): Promise<void>;
  splitAt(seconds: number): Promise<void>;
  /** Splits a line before its word `wordIndex` (the API finds the time from the word timings). */
  splitAtWord(line: DubLine, wordIndex: number): Promise<void>;
  mergeWithNext(line: DubLine): Promise<void>;
  undo(): Promise<void>;
  redo(): Promise<void>;
}

/**
 * The dub view's line edits, each through the API. The service answers an edit of lines changed meanwhile
 * (by another window, or a tool using the API) with 404 or 409 (a line PATCH carries the line's `revision`
 * as `base_revision`, so a stale one is refused instead of overwriting): the view says so, reloads the lines, and a
 * refused text is quoted in the message, never dropped silently. A refused retiming puts the region back.
 */
export function useDubEdits({
  api,
  sessionId,
  dubId,
  lines,
  updateLines,
  refresh,
  notify,
}: {
  api: ApiClient;
  sessionId: string;
  dubId: string;
  lines: DubLine[];
  updateLines: (fn: (lines: DubLine[]) => DubLine[]) => void;
  /** Reads the lines and the dub's counts again, in place. */
  refresh: () => Promise<void>;
  notify: (text: string, kind?: 'info' | 'error') => void;
}): DubEdits {
  const [busy, setBusy] = useState(false);
  const linesRef = useRef(lines);
  linesRef.current = lines;

  const failed = useCallback(
    async (what: string, error: unknown, typed?: string) => {
      const status = error instanceof ApiError ? error.status : 0;
      notify(editFailureMessage(what, status, messageOf(error), typed), 'error');
      await refresh().catch(() => undefined);
    },
    [notify, refresh],
  );

  /** Runs one edit at a time; afterwards the lines and counts are read again. */
  const run = useCallback(
    async <T>(what: string, fn: () => Promise<T>, typed?: string): Promise<T | null> => {
      setBusy(true);
      try {
        const result = await fn();
        await refresh().catch(() => undefined);
        return result;
      } catch (error) {
        await failed(what, error, typed);
        return null;
      } finally {
        setBusy(false);
      }
    },
    [failed, refresh],
  );

  const replace = useCallback((saved: DubLine) => updateLines((list) => list.map((l) => (l.id === saved.id ? saved : l))), [updateLines]);

  const patch = useCallback(
    async (what: string, line: DubLine, body: LinePatch, typed?: string) => {
      // The line's revision as this view shows it: a line changed elsewhere since is refused (409), then reloaded.
      const saved = await run(what, () => api.patchDubLine(sessionId, dubId, line.id, { ...body, base_revision: line.revision }), typed);
      if (saved) replace(saved);
      return saved;
    },
    [api, sessionId, dubId, run, replace],
  );

  return useMemo<DubEdits>(() => {
    // Lines are named as the table numbers them: by position (the ids are the API's).
    const no = (id: number) => lineNumbers(linesRef.current).get(id) ?? id;
    /** " of lines 3, 4" for the lines an undo or redo left (those known to the view), else nothing. */
    const ofLines = (ids: number[]) => {
      const known = lineNumbers(linesRef.current);
      const found = ids.map((id) => known.get(id)).filter((n) => n !== undefined).sort((a, b) => a - b);
      return found.length ? ` of line${found.length > 1 ? 's' : ''} ${found.join(', ')}` : '';
    };
    return {
      busy,
      saveLine: async (line, body) => !!(await patch(`Saving line ${no(line.id)}`, line, body, body.text)),
      setSpeed: async (line, speed) => !!(await patch(`Speed of line ${no(line.id)}`, line, { speed })),
      review: (line, status) => patch(`Review of line ${no(line.id)}`, line, { review_status: status }),
      addNote: async (line, text) => !!(await run(`Note on line ${no(line.id)}`, () => api.addDubLineNote(sessionId, dubId, line.id, text), text)),
      retime: async (id, proposed, side, duration, tb) => {
        const line = linesRef.current.find((l) => l.id === id);
        const times = clampRetime(linesRef.current, id, proposed, side, duration, tb);
        if (!line || !times || (times.start === line.start && times.end === line.end)) {
          // Nothing to store: redraw the region where the line is.
          updateLines((list) => [...list]);
          return;
        }
        // Drawn at once where it lands; the service's answer (or the reload after a refusal) follows.
        updateLines((list) => list.map((l) => (l.id === id ? { ...l, ...times } : l)));
        const saved = await patch(`Retiming line ${no(id)}`, line, times);
        if (saved) notify(`Line ${no(id)} retimed`);
      },
      makeRoom: async (line, plan) => {
        // The neighbour first: the line may not end past its start.
        if (plan.next) {
          const next = linesRef.current.find((l) => l.id === plan.next!.id);
          if (!next || !(await patch(`Shortening line ${no(plan.next.id)}`, next, { start: plan.next.start }))) return;
        }
        const [n, m] = [no(line.id), plan.next ? no(plan.next.id) : null];
        const saved = await patch(`Retiming line ${n}`, line, { end: plan.end });
        if (saved) notify(`Line ${n} now ends at its reading's end${m !== null ? `; line ${m} starts there` : ''}: Revoice to voice it again`);
      },
      splitAt: async (seconds) => {
        const line = lineAt(linesRef.current, seconds);
        const n = line ? no(line.id) : 0;
        const problem = splitProblem(line, seconds, n);
        if (problem) return notify(problem, 'error');
        const result = await run(`Splitting line ${n}`, () => api.splitDubLine(sessionId, dubId, line!.id, { at: seconds }));
        if (result) notify(`Line ${n} split in two (lines ${n} and ${n + 1})`);
      },
      splitAtWord: async (line, wordIndex) => {
        const n = no(line.id);
        const result = await run(`Splitting line ${n}`, () => api.splitDubLine(sessionId, dubId, line.id, { word_index: wordIndex }));
        if (result) notify(`Line ${n} split before word ${wordIndex + 1} (lines ${n} and ${n + 1})`);
      },
      mergeWithNext: async (line) => {
        const next = neighbour(linesRef.current, line.id, 1);
        const n = no(line.id);
        if (!next) return notify(`Line ${n} is the last line: there is nothing after it to merge`, 'error');
        const merged = await run(`Merging line ${n} with line ${n + 1}`, () => api.mergeDubLine(sessionId, dubId, line.id, next.id));
        if (merged) notify(`Line ${n + 1} merged into line ${n}`);
      },
      undo: async () => {
        const result = await run('Undo', () => api.undoDubEdit(sessionId, dubId));
        if (result) notify(`Undone: ${result.edit.op}${ofLines(result.edit.before)}`);
      },
      redo: async () => {
        const result = await run('Redo', () => api.redoDubEdit(sessionId, dubId));
        if (result) notify(`Redone: ${result.edit.op}${ofLines(result.edit.after)}`);
      },
    };
  }, [busy, patch, run, api, sessionId, dubId, notify, updateLines]);
}
