import { useEffect, useState } from 'react';
import { ApiError, messageOf } from '../api/errors';
import type { ReplaceMatchRow } from './replace-rows';
import { projectRows, recordingRows } from './replace-rows';
import type { TranscriptEdit } from '../api/transcript-edits';
import { useApp } from '../app-context';
import { Modal } from './Modal';

const PREVIEW_DELAY_MS = 300;
const MAX_LISTED = 200;

/**
 * Find and replace over the recording's transcript, or every recording of its project: the service
 * previews the matches (count, and each line's words before and after) as the editor types; applying makes
 * one revision per recording changed. This recording's becomes an edit of the view (Ctrl+Z undoes it).
 */
export function ReplaceDialog({
  sessionId,
  project,
  revision,
  onEdited,
  onStale,
  onClose,
}: {
  sessionId: string;
  /** The project's key and name, for replacing across it. */
  project: { key: string; name: string };
  revision: number | undefined;
  onEdited: (edit: TranscriptEdit) => void;
  onStale: () => Promise<unknown>;
  onClose: () => void;
}) {
  const { api } = useApp();
  const [find, setFind] = useState('');
  const [replace, setReplace] = useState('');
  const [matchCase, setMatchCase] = useState(false);
  const [wholeWords, setWholeWords] = useState(true);
  const [everywhere, setEverywhere] = useState(false);
  const [preview, setPreview] = useState<{ count: number; rows: ReplaceMatchRow[]; recordings: number } | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const options = { find, replace, match_case: matchCase, whole_words: wholeWords };

  useEffect(() => {
    setPreview(null);
    if (!find.trim()) return;
    let live = true;
    const timer = setTimeout(() => {
      const ask = everywhere
        ? api.replaceInProject(project.key, { ...options, preview: true }).then((r) => ({
            count: r.count,
            rows: projectRows(r),
            recordings: r.recordings.filter((x) => x.count > 0).length,
          }))
        : api.replaceText(sessionId, { ...options, preview: true }).then((r) => ({ count: r.count, rows: recordingRows(r.matches), recordings: 1 }));
      ask.then(
        (r) => live && (setPreview(r), setError(null)),
        (e: unknown) => live && setError(messageOf(e)),
      );
    }, PREVIEW_DELAY_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [api, sessionId, project.key, find, replace, matchCase, wholeWords, everywhere, revision]);

  const apply = async () => {
    setBusy(true);
    setError(null);
    try {
      if (everywhere) {
        const r = await api.replaceInProject(project.key, options);
        const mine = r.recordings.find((x) => x.session_id === sessionId)?.revision;
        if (mine) onEdited({ revision: mine, session: await api.getSession(sessionId) });
        const changed = r.recordings.filter((x) => x.revision).length;
        setDone(`Replaced ${r.count} in ${changed} ${changed === 1 ? 'recording' : 'recordings'}`);
        return setPreview(null);
      }
      const r = await api.replaceText(sessionId, { ...options, base_revision: revision });
      if (r.revision && r.session) {
        onEdited({ revision: r.revision, session: r.session });
        onClose();
      } else setError('Nothing matched: nothing changed.');
    } catch (e) {
      if (e instanceof ApiError && e.status === 409) {
        await onStale().catch(() => undefined);
        setError('The transcript was changed elsewhere: reloaded it. Check the preview and replace again.');
      } else setError(messageOf(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal title="Find and replace" onClose={onClose} testId="replace-dialog">
      <div className="fields">
        <label className="stacked">
          Find
          <input value={find} onChange={(e) => (setFind(e.target.value), setDone(null))} data-testid="replace-find" placeholder="show on" />
        </label>
        <label className="stacked">
          Replace with
          <input value={replace} onChange={(e) => (setReplace(e.target.value), setDone(null))} data-testid="replace-with" placeholder="Siobhan" />
        </label>
        <label>
          <input type="checkbox" checked={matchCase} onChange={(e) => setMatchCase(e.target.checked)} /> Match case
        </label>
        <label>
          <input type="checkbox" checked={wholeWords} onChange={(e) => setWholeWords(e.target.checked)} data-testid="replace-whole" />{' '}
          Whole words
        </label>
        <label>
          <input type="checkbox" checked={everywhere} onChange={(e) => (setEverywhere(e.target.checked), setDone(null))} data-testid="replace-project" />{' '}
          In every recording of {project.name}
        </label>
      </div>
      <div className="hint" data-testid="replace-count" aria-live="polite">
        {done ??
          (!find.trim()
            ? 'Type what to find.'
            : preview
              ? `${preview.count} ${preview.count === 1 ? 'match' : 'matches'}${everywhere ? ` in ${preview.recordings} ${preview.recordings === 1 ? 'recording' : 'recordings'}` : ''}`
              : 'Looking…')}
      </div>
      {preview && preview.rows.length > 0 && (
        <ul className="replace-list" data-testid="replace-preview">
          {preview.rows.slice(0, MAX_LISTED).map((m, i) => (
            <li key={i} data-testid="replace-match">
              <span className="hint">{m.where}: </span>
              <del>{m.before}</del> → <ins>{m.after || '(removed)'}</ins>
            </li>
          ))}
          {preview.rows.length > MAX_LISTED && <li className="hint">and {preview.rows.length - MAX_LISTED} more</li>}
        </ul>
      )}
      {error && (
        <div className="form-error" role="alert">
          {error}
        </div>
      )}
      <div className="actions">
        <button onClick={onClose}>Close</button>
        <button className="primary" disabled={busy || !preview || preview.count === 0} onClick={apply} data-testid="replace-apply">
          {busy ? 'Replacing…' : `Replace ${preview?.count ?? 0}`}
        </button>
      </div>
    </Modal>
  );
}
