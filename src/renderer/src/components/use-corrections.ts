/**
 * Correcting words in the recording view: which word or line is being edited, saving it as a revision
 * (PATCH …/segments/{id} with the revision it was made on), undo/redo over revisions, the loop over the
 * line while it is edited, and the doubtful word Tab picked. A stale revision (409: the transcript was
 * changed elsewhere) reloads the transcript and says so, keeping the typed words to save again.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiError, messageOf } from '../api/errors';
import type { TranscriptSegment } from '../api/types';
import type { MappedSession, TranscriptEdit, TranscriptEditsApi } from '../api/transcript-edits';
import { nextDoubtful, type WordRef } from '../lib/confidence';
import {
  afterRedo,
  afterUndo,
  emptyHistory,
  recordEdit,
  redoTarget,
  undoTarget,
  type EditHistory,
} from '../lib/edit-history';
import { loopJump } from '../lib/line-loop';
import type { Transport } from '../player/transport';
import type { PlayerStore } from '../state/player-store';

export interface Editing {
  segmentId: number;
  /** The word being corrected, or null for the whole line. */
  word: number | null;
  initial: string;
}

export function useCorrections({
  api,
  sessionId,
  segments,
  onSession,
  transport,
  player,
  notify,
}: {
  api: TranscriptEditsApi & { getSession(id: string): Promise<MappedSession> };
  sessionId: string;
  segments: TranscriptSegment[];
  onSession: (s: MappedSession) => void;
  transport: Transport | null;
  player: PlayerStore | null;
  notify: (text: string, kind?: 'info' | 'error') => void;
}) {
  const [revision, setRevisionState] = useState<number | undefined>(undefined);
  const revisionRef = useRef<number | undefined>(undefined);
  const setRevision = (r: number) => {
    revisionRef.current = r;
    setRevisionState(r);
  };
  // Who made the current revision (null: as recognized), shown beside its number.
  const [revisionAuthor, setRevisionAuthor] = useState<string | null>(null);
  const history = useRef<EditHistory>(emptyHistory);
  const [editing, setEditingState] = useState<Editing | null>(null);
  // Set at once, before React draws the box: the page's keys stand aside from the double-click on.
  const editingRef = useRef<Editing | null>(null);
  const setEditing = useCallback((e: Editing | null) => {
    editingRef.current = e;
    setEditingState(e);
  }, []);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [focus, setFocus] = useState<WordRef | null>(null);

  useEffect(() => {
    api.listRevisions(sessionId).then(
      (list) => {
        setRevision(list.current);
        setRevisionAuthor(list.data.find((r) => r.revision === list.current)?.author ?? null);
      },
      () => undefined,
    );
  }, [api, sessionId]);

  /** Any edit made in this view (corrections, speaker fixes): shown, and undoable. */
  const applied = useCallback(
    (edit: TranscriptEdit) => {
      const from = revisionRef.current;
      if (from !== undefined) history.current = recordEdit(history.current, from);
      setRevision(edit.revision.revision);
      setRevisionAuthor(edit.revision.author);
      onSession(edit.session);
      // A script alignment rebuilds every line: the word Tab picked is gone.
      if (edit.revision.edit?.op === 'align_script') setFocus(null);
      notify(`Saved as revision ${edit.revision.revision}`);
    },
    [onSession, notify],
  );

  const reloadStale = useCallback(async () => {
    const [session, list] = await Promise.all([api.getSession(sessionId), api.listRevisions(sessionId)]);
    onSession(session);
    setRevision(list.current);
    setRevisionAuthor(list.data.find((r) => r.revision === list.current)?.author ?? null);
    history.current = emptyHistory;
    return list.current;
  }, [api, sessionId, onSession]);

  // The edit call under way, if any: undo and redo wait for it (Ctrl+Z while a correction saves).
  const inFlight = useRef<Promise<boolean> | null>(null);

  /** Runs an edit call; a 409 reloads and says so. Answers whether it succeeded. */
  const attempt = useCallback(
    (call: () => Promise<TranscriptEdit>, done: (edit: TranscriptEdit) => void): Promise<boolean> => {
      const run = (async () => {
        setBusy(true);
        setError(null);
        try {
          done(await call());
          return true;
        } catch (e) {
          if (e instanceof ApiError && e.status === 409) {
            const now = await reloadStale().catch(() => undefined);
            const text = `The transcript was changed elsewhere${now === undefined ? '' : ` (now revision ${now})`}: reloaded it. Check the line and save again.`;
            setError(text);
            notify(text, 'error');
          } else {
            setError(messageOf(e));
          }
          return false;
        } finally {
          setBusy(false);
        }
      })();
      inFlight.current = run;
      void run.finally(() => {
        if (inFlight.current === run) inFlight.current = null;
      });
      return run;
    },
    [reloadStale, notify],
  );

  /**
   * Before an undo or redo: an edit still saving is waited for, so Ctrl+Z pressed during "Saving and aligning…"
   * undoes that edit once it is stored. False (and said) when the save failed: there is nothing of it to undo.
   */
  const settled = useCallback(
    async (what: 'undo' | 'redo'): Promise<boolean> => {
      const saving = inFlight.current;
      if (!saving) return true;
      notify(`Saving the edit first; the ${what} follows`);
      if (await saving) return true;
      notify(`The edit was not saved, so there is nothing of it to ${what}`, 'error');
      return false;
    },
    [notify],
  );

  const startEdit = useCallback(
    (segmentId: number, word: number | null) => {
      const seg = segments.find((s) => s.id === segmentId);
      if (!seg) return;
      const initial =
        word === null || !seg.words[word]
          ? seg.words.map((w) => w.word.trim()).join(' ') || seg.text.trim()
          : seg.words[word].word.trim();
      setError(null);
      setEditing({ segmentId, word: word !== null && seg.words[word] ? word : null, initial });
      // The line plays while it is edited, from its start.
      if (transport) {
        transport.seek(seg.start);
        if (player && player.getState().rate === 0) transport.setRate(1);
      }
    },
    [segments, transport, player],
  );

  const cancel = useCallback(() => {
    setEditing(null);
    setError(null);
    transport?.stop();
  }, [transport]);

  const save = useCallback(
    async (text: string) => {
      if (!editing) return;
      if (text.trim() === editing.initial) return cancel();
      const range = editing.word === null ? {} : { word_start: editing.word, word_end: editing.word };
      const ok = await attempt(
        () =>
          api.editLineText(sessionId, editing.segmentId, {
            text: text.trim(),
            ...range,
            base_revision: revisionRef.current,
          }),
        applied,
      );
      if (ok) cancel();
    },
    [editing, attempt, api, sessionId, applied, cancel],
  );

  const undo = useCallback(async () => {
    if (!(await settled('undo'))) return;
    const current = revisionRef.current;
    if (current === undefined) return;
    const target = undoTarget(history.current, current);
    if (target === null) return notify('Nothing to undo: this is the transcript as recognized');
    await attempt(
      () => api.restoreRevision(sessionId, target, current),
      (edit) => {
        history.current = afterUndo(history.current, current);
        setRevision(edit.revision.revision);
        setRevisionAuthor(edit.revision.author);
        onSession(edit.session);
        notify(`Undone: back to revision ${target} (saved as ${edit.revision.revision})`);
      },
    );
  }, [api, sessionId, attempt, settled, notify, onSession]);

  const redo = useCallback(async () => {
    if (!(await settled('redo'))) return;
    const current = revisionRef.current;
    const target = redoTarget(history.current);
    if (current === undefined) return;
    if (target === null) return notify('Nothing to redo');
    await attempt(
      () => api.restoreRevision(sessionId, target, current),
      (edit) => {
        history.current = afterRedo(history.current, current);
        setRevision(edit.revision.revision);
        setRevisionAuthor(edit.revision.author);
        onSession(edit.session);
        notify(`Redone: revision ${target} again (saved as ${edit.revision.revision})`);
      },
    );
  }, [api, sessionId, attempt, settled, notify, onSession]);

  /** Tab / Shift+Tab: the next doubtful word, where the playhead goes too. */
  const stepDoubtful = useCallback(
    (dir: 1 | -1) => {
      const next = nextDoubtful(segments, focus, dir);
      if (!next) return notify('No doubtful words left');
      setFocus(next);
      transport?.seek(segments[next.line]!.words[next.word]!.start);
    },
    [segments, focus, transport, notify],
  );

  // A pick that no longer names a word (lines merged, words removed) is dropped.
  useEffect(() => setFocus((f) => (f && segments[f.line]?.words[f.word] ? f : null)), [segments]);

  // The line loops while it is edited.
  const seg = editing ? segments.find((s) => s.id === editing.segmentId) : undefined;
  useEffect(() => {
    if (!seg || !player || !transport) return;
    return player.subscribe((s) => {
      const to = loopJump(s.currentTime, s.rate, seg.start, seg.end);
      if (to !== null) transport.seek(to);
    });
  }, [seg?.start, seg?.end, player, transport]);

  return {
    revision,
    revisionAuthor,
    applied,
    editing,
    editingRef,
    busy,
    error,
    startEdit,
    cancel,
    save,
    undo,
    redo,
    focus,
    setFocus,
    stepDoubtful,
    reloadStale,
  };
}
