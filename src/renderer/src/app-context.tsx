import { createContext, useContext } from 'react';
import { useStore } from 'zustand';
import type { ApiClient } from './api/client';
import type { AppState, AppStore } from './state/app-store';

export interface AppContextValue {
  api: ApiClient;
  store: AppStore;
  navigate(hash: string): void;
}

export const AppContext = createContext<AppContextValue | null>(null);

export function useApp(): AppContextValue {
  const value = useContext(AppContext);
  if (!value) throw new Error('useApp outside <AppContext.Provider>');
  return value;
}

export function useAppState<T>(selector: (s: AppState) => T): T {
  return useStore(useApp().store, selector);
}
