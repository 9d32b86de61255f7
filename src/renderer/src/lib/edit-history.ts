/**
 * Undo and redo over transcript revisions. Every edit makes a new revision and nothing is lost, so undo
 * restores the revision shown before the edit (as a new revision) and redo restores the one undone.
 * Restoring "current − 1" would, after one undo, step back into the undone edit; the stacks avoid that.
 */
export interface EditHistory {
  /** Revisions to go back to, most recent last. */
  undo: number[];
  /** Revisions undone, most recent last. */
  redo: number[];
}

export const emptyHistory: EditHistory = { undo: [], redo: [] };

/** A new edit moved the transcript from `from` on: it can be undone; what was undone cannot be redone. */
export function recordEdit(h: EditHistory, from: number): EditHistory {
  return { undo: [...h.undo, from], redo: [] };
}

/**
 * The revision undo restores, from `current`. With nothing recorded in this view (a reload), the
 * previous revision in the list, as the Speakers panel's undo does.
 */
export function undoTarget(h: EditHistory, current: number): number | null {
  if (h.undo.length) return h.undo[h.undo.length - 1]!;
  return current > 0 ? current - 1 : null;
}

export function redoTarget(h: EditHistory): number | null {
  return h.redo.length ? h.redo[h.redo.length - 1]! : null;
}

/** After undo from `current` succeeded. */
export function afterUndo(h: EditHistory, current: number): EditHistory {
  return { undo: h.undo.slice(0, -1), redo: [...h.redo, current] };
}

/** After redo from `current` succeeded. */
export function afterRedo(h: EditHistory, current: number): EditHistory {
  return { undo: [...h.undo, current], redo: h.redo.slice(0, -1) };
}
