import { useState, type FormEvent } from 'react';
import { messageOf } from '../api/errors';
import { useApp } from '../app-context';
import { useLoad } from '../hooks';
import { formatDuration } from '../lib/format';
import { routeHash } from '../lib/route';

/**
 * A recording's dubs, in the recording view's side panel: open one, or add one: first a dub of the recording
 * itself (its own audio and current transcript lines, no file), else an upload (its audio, an optional
 * music-and-effects stem, and optional lines as JSON; without lines the service transcribes the dub).
 */
export function DubsPanel({ sessionId }: { sessionId: string }) {
  const { api, navigate, store } = useApp();
  const [dubs] = useLoad((signal) => api.listDubs(sessionId, signal), [sessionId]);
  const [adding, setAdding] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function fromRecording() {
    setBusy(true);
    setError(null);
    try {
      const dub = await api.createDubFromRecording(sessionId, {});
      store.getState().notify(`Dub ${dub.name} added from the recording`);
      navigate(routeHash({ name: 'dub', sessionId, dubId: dub.id }));
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  }

  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const file = form.get('dub') as File | null;
    const background = form.get('background') as File | null;
    const lines = form.get('lines') as File | null;
    if (!file || file.size === 0) return setError('Choose the dub audio.');
    setBusy(true);
    setError(null);
    try {
      const dub = await api.createDub(sessionId, {
        file,
        background: background && background.size > 0 ? background : undefined,
        lines: lines && lines.size > 0 ? await lines.text() : undefined,
      });
      store.getState().notify(`Dub ${dub.name} added`);
      navigate(routeHash({ name: 'dub', sessionId, dubId: dub.id }));
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <div data-testid="dubs-panel">
      <h4>Dubs</h4>
      {dubs.state === 'ready' && dubs.value.length === 0 && !adding && <div className="hint">No dub yet.</div>}
      {dubs.state === 'error' && <div className="field-error">{dubs.message}</div>}
      {dubs.state === 'ready' && dubs.value.length > 0 && (
        <ul className="plain-list">
          {dubs.value.map((d) => (
            <li key={d.id}>
              <a href={routeHash({ name: 'dub', sessionId, dubId: d.id })} data-testid="dub-link">
                {d.name}
              </a>{' '}
              <span className="hint">
                {formatDuration(d.format.duration)} · {d.status === 'ready' ? `r${d.current_revision}` : d.status}
              </span>
            </li>
          ))}
        </ul>
      )}
      {adding ? (
        <form className="dub-form" onSubmit={submit} data-testid="add-dub-form">
          <label>
            Dub audio
            <input type="file" name="dub" accept="audio/*,video/*" data-testid="dub-file" />
          </label>
          <label>
            Music and effects (optional)
            <input type="file" name="background" accept="audio/*" data-testid="dub-background" />
          </label>
          <label>
            Lines, JSON (optional; else transcribed)
            <input type="file" name="lines" accept=".json,application/json" data-testid="dub-lines" />
          </label>
          {error && (
            <div className="field-error" role="alert">
              {error}
            </div>
          )}
          <div className="row">
            <button type="submit" className="primary" disabled={busy}>
              {busy ? 'Uploading…' : 'Add dub'}
            </button>
            <button type="button" className="ghost" onClick={() => setAdding(false)} disabled={busy}>
              Cancel
            </button>
          </div>
        </form>
      ) : (
        <>
          {error && (
            <div className="field-error" role="alert">
              {error}
            </div>
          )}
          <div className="row">
            <button
              className="primary"
              onClick={() => void fromRecording()}
              disabled={busy}
              data-testid="dub-from-recording"
              title="A dub of this recording's own audio, its current transcript lines as the dub's lines"
            >
              {busy ? 'Adding…' : 'Dub this recording'}
            </button>
            <button onClick={() => setAdding(true)} disabled={busy} data-testid="add-dub">
              Upload a dub…
            </button>
          </div>
        </>
      )}
    </div>
  );
}
