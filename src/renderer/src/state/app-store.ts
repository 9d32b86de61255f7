/** App-wide UI state: notifications. Created once per app root (no module-level singletons). */
import { createStore } from 'zustand/vanilla';

export interface Toast {
  id: number;
  kind: 'info' | 'error';
  text: string;
}

/** Notifications shown at once; an older one gives way to a new one. */
export const MAX_TOASTS = 3;

export interface AppState {
  toasts: Toast[];
  notify(text: string, kind?: Toast['kind']): void;
  dismiss(id: number): void;
}

export function createAppStore() {
  let next = 1;
  return createStore<AppState>()((set) => ({
    toasts: [],
    notify(text, kind = 'info') {
      const id = next++;
      set((s) => ({ toasts: [...s.toasts.slice(-(MAX_TOASTS - 1)), { id, kind, text }] }));
      setTimeout(
        () => set((s) => ({ toasts: s.toasts.filter((t) => t.id !== id) })),
        kind === 'error' ? 8000 : 4000,
      );
    },
    dismiss: (id) => set((s) => ({ toasts: s.toasts.filter((t) => t.id !== id) })),
  }));
}

export type AppStore = ReturnType<typeof createAppStore>;
