import { createContext, useContext } from 'react';
import { useStore } from 'zustand';
import type { ApiClient } from './api/client';
import { may, type MeInfo, type Role } from './api/roles';
import type { AppState, AppStore } from './state/app-store';

export interface AppContextValue {
  api: ApiClient;
  store: AppStore;
  navigate(hash: string): void;
  /** Who is signed in and their roles (GET /v1/me); null until the service has said. */
  me: MeInfo | null;
}

export const AppContext = createContext<AppContextValue | null>(null);

export function useApp(): AppContextValue {
  const value = useContext(AppContext);
  if (!value) throw new Error('useApp outside <AppContext.Provider>');
  return value;
}

/** Whether the signed-in caller holds `needed` (on the project, by id): the studio shows only what they may do. */
export function useMay(needed: Role, projectId: string | null = null): boolean {
  return may(useApp().me, needed, projectId);
}

export function useAppState<T>(selector: (s: AppState) => T): T {
  return useStore(useApp().store, selector);
}
