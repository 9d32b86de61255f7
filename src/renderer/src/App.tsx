import { useMemo, useState } from 'react';
import type { ApiClient } from './api/client';
import { AppContext, type AppContextValue } from './app-context';
import { Toasts } from './components/Toasts';
import { useHash } from './hooks';
import { parseRoute } from './lib/route';
import { createAppStore } from './state/app-store';
import { ProjectsView } from './views/ProjectsView';
import { ProjectView } from './views/ProjectView';
import { RecordingView } from './views/RecordingView';
import { DubView } from './views/DubView';
import { SettingsView } from './views/SettingsView';

export function App({ api }: { api: ApiClient }) {
  const [store] = useState(createAppStore);
  const hash = useHash();
  const route = parseRoute(hash);
  const ctx = useMemo<AppContextValue>(
    () => ({ api, store, navigate: (h) => void (window.location.hash = h) }),
    [api, store],
  );
  return (
    <AppContext.Provider value={ctx}>
      <div className="app">
        {route.name === 'projects' && <ProjectsView />}
        {route.name === 'project' && <ProjectView key={route.key} projectKey={route.key} />}
        {route.name === 'recording' && <RecordingView key={route.id} sessionId={route.id} />}
        {route.name === 'dub' && <DubView key={route.dubId} sessionId={route.sessionId} dubId={route.dubId} />}
        {route.name === 'settings' && <SettingsView />}
        <Toasts />
      </div>
    </AppContext.Provider>
  );
}
