import { describe, expect, it } from 'vitest';
import { afterRedo, afterUndo, emptyHistory, recordEdit, redoTarget, undoTarget } from './edit-history';

describe('edit history', () => {
  it('undoes to the revision before each edit and redoes what was undone', () => {
    // Revision 0 → edit A (1) → edit B (2).
    let h = recordEdit(recordEdit(emptyHistory, 0), 1);
    expect(undoTarget(h, 2)).toBe(1);
    h = afterUndo(h, 2); // restore 1 made revision 3
    expect(undoTarget(h, 3)).toBe(0);
    expect(redoTarget(h)).toBe(2);
    h = afterRedo(h, 3); // restore 2 made revision 4
    expect(undoTarget(h, 4)).toBe(3);
    expect(redoTarget(h)).toBeNull();
  });
  it('forgets redo after a new edit and falls back to the previous revision', () => {
    let h = afterUndo(recordEdit(emptyHistory, 0), 1);
    h = recordEdit(h, 2);
    expect(redoTarget(h)).toBeNull();
    expect(undoTarget(emptyHistory, 5)).toBe(4);
    expect(undoTarget(emptyHistory, 0)).toBeNull();
  });
});
