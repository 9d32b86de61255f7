import { useEffect, useRef, useState } from 'react';
import { ApiError, messageOf } from '../api/errors';
import type { AlignResult, TranscriptEdit } from '../api/transcript-edits';
import { useApp } from '../app-context';
import { scriptWordCount } from '../../../shared/script-words';
import { Modal } from './Modal';

/**
 * "Align a script": text the editor already has (pasted, or a dropped or chosen .txt file; lines may begin
 * `NAME: `) replaces the recognized words, each word timed to the audio by the service. Closing the
 * dialog while it works cancels the request (the service then stores nothing).
 */
export function AlignScriptDialog({
  sessionId,
  revision,
  onEdited,
  onStale,
  onClose,
}: {
  sessionId: string;
  revision: number | undefined;
  onEdited: (edit: TranscriptEdit) => void;
  onStale: () => Promise<unknown>;
  onClose: () => void;
}) {
  const { api } = useApp();
  const [text, setText] = useState('');
  const [over, setOver] = useState(false);
  const [started, setStarted] = useState<number | null>(null);
  const [elapsed, setElapsed] = useState(0);
  const [result, setResult] = useState<AlignResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const abort = useRef<AbortController | null>(null);
  useEffect(() => () => abort.current?.abort(), []);
  useEffect(() => {
    if (started === null) return;
    const timer = setInterval(() => setElapsed((Date.now() - started) / 1000), 250);
    return () => clearInterval(timer);
  }, [started]);

  const readFile = async (file: File | undefined) => {
    if (!file) return;
    if (!/\.txt$/i.test(file.name) && file.type && !file.type.startsWith('text/'))
      return setError(`${file.name} is not a text file: drop a .txt script`);
    setError(null);
    setText(await file.text());
  };

  const align = async () => {
    const controller = new AbortController();
    abort.current = controller;
    setStarted(Date.now());
    setElapsed(0);
    setError(null);
    setResult(null);
    try {
      const r = await api.alignScript(sessionId, { text, base_revision: revision }, controller.signal);
      setResult(r);
      onEdited({ revision: r.revision, session: r.session });
    } catch (e) {
      if (controller.signal.aborted) return;
      if (e instanceof ApiError && e.status === 409) {
        await onStale().catch(() => undefined);
        setError('The transcript was changed elsewhere: reloaded it. Align again.');
      } else setError(messageOf(e));
    } finally {
      setStarted(null);
      abort.current = null;
    }
  };

  // Counted as the service counts them (labels out, punctuation alone not a word), so the result agrees.
  const words = text.trim() ? scriptWordCount(text) : 0;
  const working = started !== null;
  return (
    <Modal title="Align a script" onClose={onClose} testId="align-dialog">
      <p className="hint">
        Paste the script or drop a .txt file. Its words replace the recognized ones, each timed to the audio; lines
        beginning <code>NAME:</code> name their speaker. The recognized transcript stays in the revisions (Ctrl+Z undoes).
      </p>
      <div
        className={`script-drop${over ? ' over' : ''}`}
        data-testid="script-drop"
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={(e) => {
          e.preventDefault();
          setOver(false);
          void readFile(e.dataTransfer.files[0]);
        }}
      >
        <textarea
          value={text}
          onChange={(e) => setText(e.target.value)}
          disabled={working}
          placeholder="The script, as plain text"
          autoFocus
          aria-label="Script"
          data-testid="script-text"
        />
      </div>
      <label className="hint">
        Or choose a file:{' '}
        <input type="file" accept=".txt,text/plain" onChange={(e) => void readFile(e.target.files?.[0])} data-testid="script-file" disabled={working} />
      </label>
      <div className="hint" data-testid="align-state" aria-live="polite">
        {working
          ? `Aligning ${words} words to the audio… ${elapsed.toFixed(0)} s`
          : result
            ? null
            : `${words} words`}
      </div>
      {result && (
        <dl className="kv" data-testid="align-result">
          <dt>Words</dt>
          <dd data-testid="align-words">{result.alignment.words}</dd>
          <dt>Placed by the aligner</dt>
          <dd data-testid="align-aligned">{result.alignment.aligned}</dd>
          <dt>Spread over their stretch</dt>
          <dd data-testid="align-interpolated">{result.alignment.interpolated}</dd>
          <dt>Anchors</dt>
          <dd>{result.alignment.anchored} words matched the recognizer</dd>
          <dt>Revision</dt>
          <dd>{result.revision.revision}</dd>
        </dl>
      )}
      {error && (
        <div className="form-error" role="alert">
          {error}
        </div>
      )}
      <div className="actions">
        <button onClick={onClose}>{result ? 'Done' : working ? 'Cancel' : 'Close'}</button>
        {!result && (
          <button className="primary" disabled={working || words === 0} onClick={align} data-testid="align-run">
            {working ? 'Aligning…' : 'Align'}
          </button>
        )}
      </div>
    </Modal>
  );
}
