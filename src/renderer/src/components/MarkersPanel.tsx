/**
 * The editor's own markers (side panel): add one at the playhead (M, or the button), click its time to go
 * there, its name to rename it, × to remove it. Kept by the service with the recording and listed in exports;
 * the timeline draws them in their own lane and ] / [ visit them (RecordingView).
 */
import { useCallback, useEffect, useRef, useState, type Dispatch, type SetStateAction } from 'react';
import { messageOf } from '../api/errors';
import type { EditorMarker } from '../api/editor-basics';
import { useApp } from '../app-context';
import type { Transport } from '../player/transport';

/** The event the M key sends (the view's key handler does not own the list). */
export const ADD_MARKER_EVENT = 'takeline:add-marker';

/**
 * The recording's own markers, loaded once and kept in step with the panel's edits. The view owns them: the
 * panel lists and edits them, the timeline draws them and the marker jumps visit them.
 */
export function useEditorMarkers(sessionId: string): {
  markers: EditorMarker[];
  setMarkers: Dispatch<SetStateAction<EditorMarker[]>>;
  error: string | null;
} {
  const { api } = useApp();
  const [markers, setMarkers] = useState<EditorMarker[]>([]);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const abort = new AbortController();
    setMarkers([]);
    api.listMarkers(sessionId, abort.signal).then(
      (list) => {
        setError(null);
        setMarkers(list);
      },
      (e: unknown) => {
        if (!abort.signal.aborted) setError(messageOf(e));
      },
    );
    return () => abort.abort();
  }, [api, sessionId]);
  return { markers, setMarkers, error };
}

export function MarkersPanel({
  sessionId,
  transport,
  formatTime,
  markers,
  setMarkers,
  loadError,
}: {
  sessionId: string;
  transport: Transport | null;
  formatTime: (t: number) => string;
  markers: EditorMarker[];
  setMarkers: Dispatch<SetStateAction<EditorMarker[]>>;
  loadError?: string | null;
}) {
  const { api } = useApp();
  const [failed, setError] = useState<string | null>(null);
  const error = failed ?? loadError ?? null;
  const [editing, setEditing] = useState<string | null>(null);
  const [draft, setDraft] = useState('');
  // The name offered ("Marker 3", or the old name on a rename) is selected: typing replaces it.
  const nameInput = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (editing) nameInput.current?.select();
  }, [editing]);

  const act = useCallback(async (work: () => Promise<void>) => {
    setError(null);
    try {
      await work();
    } catch (e) {
      setError(messageOf(e));
    }
  }, []);

  const add = useCallback(
    () =>
      act(async () => {
        if (!transport) return;
        const time = Math.round(transport.currentTime * 1000) / 1000;
        const made = await api.addMarker(sessionId, { time, name: `Marker ${markers.length + 1}` });
        setMarkers((list) => [...list, made].sort((a, b) => a.time - b.time));
        // Name it at once, as editors do.
        setDraft(made.name);
        setEditing(made.id);
      }),
    [act, api, sessionId, transport, markers.length, setMarkers],
  );
  useEffect(() => {
    const onAdd = () => void add();
    window.addEventListener(ADD_MARKER_EVENT, onAdd);
    return () => window.removeEventListener(ADD_MARKER_EVENT, onAdd);
  }, [add]);

  const rename = (id: string) =>
    act(async () => {
      const name = draft.trim();
      if (name) {
        const changed = await api.updateMarker(sessionId, id, { name });
        setMarkers((list) => list.map((m) => (m.id === id ? changed : m)));
      }
      setEditing(null);
    });
  const remove = (id: string) =>
    act(async () => {
      await api.deleteMarker(sessionId, id);
      setMarkers((list) => list.filter((m) => m.id !== id));
    });

  return (
    <div data-testid="markers-panel">
      <h4>Markers</h4>
      <ul className="speaker-list">
        {markers.map((m) => (
          <li key={m.id} data-testid="editor-marker" data-id={m.id} data-time={m.time}>
            <button className="link num" onClick={() => transport?.seek(m.time)} title="Go to the marker">
              {formatTime(m.time)}
            </button>
            {editing === m.id ? (
              <input
                ref={nameInput}
                type="text"
                autoFocus
                value={draft}
                maxLength={200}
                aria-label="Marker name"
                data-testid="marker-name-input"
                onChange={(e) => setDraft(e.target.value)}
                onKeyDown={(e) => {
                  if (e.key === 'Enter') void rename(m.id);
                  if (e.key === 'Escape') setEditing(null);
                  e.stopPropagation();
                }}
                onBlur={() => void rename(m.id)}
              />
            ) : (
              <button
                className="link"
                data-testid="marker-name"
                title="Rename"
                onClick={() => {
                  setDraft(m.name);
                  setEditing(m.id);
                }}
              >
                {m.name}
              </button>
            )}
            <button className="ghost small" aria-label={`Remove ${m.name}`} data-testid="remove-marker" onClick={() => void remove(m.id)}>
              ×
            </button>
          </li>
        ))}
      </ul>
      <button onClick={() => void add()} disabled={!transport} data-testid="add-marker" title="Add a marker at the playhead (M)">
        Add at playhead
      </button>
      {error && (
        <div className="form-error" role="alert">
          {error}
        </div>
      )}
    </div>
  );
}
