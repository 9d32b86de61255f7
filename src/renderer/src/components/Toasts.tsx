import { useApp, useAppState } from '../app-context';
import { MAX_TOASTS } from '../state/app-store';

/**
 * Notifications in a status strip along the bottom of the window, in a row of their own: they never cover
 * the transcript, the side panel or its Undo (floating toasts stacked over both). The newest is on the
 * left; at most MAX_TOASTS at once, each cut to one line with the whole text in its tooltip.
 */
export function Toasts() {
  const toasts = useAppState((s) => s.toasts);
  const { store } = useApp();
  return (
    <footer className="toasts" aria-live="polite" data-testid="toasts">
      {[...toasts]
        .reverse()
        .slice(0, MAX_TOASTS)
        .map((t) => (
          <div
            key={t.id}
            className={`toast ${t.kind}`}
            role={t.kind === 'error' ? 'alert' : 'status'}
            title={t.text}
            data-testid="toast"
          >
            <span className="toast-text">{t.text}</span>
            <button className="ghost" aria-label="Dismiss" onClick={() => store.getState().dismiss(t.id)}>
              ×
            </button>
          </div>
        ))}
    </footer>
  );
}
