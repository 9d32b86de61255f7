import { useApp, useAppState } from '../app-context';

export function Toasts() {
  const toasts = useAppState((s) => s.toasts);
  const { store } = useApp();
  return (
    <div className="toasts" aria-live="polite">
      {toasts.map((t) => (
        <div key={t.id} className={`toast ${t.kind}`} role={t.kind === 'error' ? 'alert' : 'status'}>
          <span>{t.text}</span>
          <button className="ghost" aria-label="Dismiss" onClick={() => store.getState().dismiss(t.id)}>
            ×
          </button>
        </div>
      ))}
    </div>
  );
}
