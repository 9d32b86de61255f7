import { useEffect, useMemo, useState } from 'react';
import { hasAnyRole, type MeInfo } from './api/roles';
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
import { AdminView } from './views/AdminView';
import { NoRoleView } from './views/NoRoleView';

export function App({ api }: { api: ApiClient }) {
  const [store] = useState(createAppStore);
  const hash = useHash();
  const route = parseRoute(hash);
  const [me, setMe] = useState<MeInfo | null>(null);
  useEffect(() => {
    const controller = new AbortController();
    // Not known (a service that cannot say): the views' own errors show; controls needing a role stay hidden.
    api.getMe(controller.signal).then(setMe, () => undefined);
    return () => controller.abort();
  }, [api]);
  const ctx = useMemo<AppContextValue>(
    () => ({ api, store, navigate: (h) => void (window.location.hash = h), me }),
    [api, store, me],
  );
  if (me && !hasAnyRole(me)) {
    return (
      <AppContext.Provider value={ctx}>
        <div className="app">
          <NoRoleView me={me} />
        </div>
      </AppContext.Provider>
    );
  }
  return (
    <AppContext.Provider value={ctx}>
      <div className="app">
        {route.name === 'projects' && <ProjectsView />}
        {route.name === 'project' && <ProjectView key={route.key} projectKey={route.key} />}
        {route.name === 'recording' && <RecordingView key={route.id} sessionId={route.id} />}
        {route.name === 'dub' && <DubView key={route.dubId} sessionId={route.sessionId} dubId={route.dubId} />}
        {route.name === 'settings' && <SettingsView />}
        {route.name === 'admin' && <AdminView />}
        <Toasts />
      </div>
    </AppContext.Provider>
  );
}
