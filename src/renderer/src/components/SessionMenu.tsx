import { useEffect, useState } from 'react';
import { loadSessionInfo, signOut, type SessionInfo } from '../api/sign-in';
import { messageOf } from '../api/errors';
import { useApp } from '../app-context';

/**
 * Who is signed in to the studio in this browser, and Sign out (the service ends the session and, for single
 * sign-on, sends the browser on to the provider to end that session too). Nothing for the desktop, which has no
 * browser session.
 */
export function SessionMenu() {
  const { store } = useApp();
  const [info, setInfo] = useState<SessionInfo | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    let live = true;
    void loadSessionInfo().then((value) => live && setInfo(value));
    return () => {
      live = false;
    };
  }, []);
  if (!info?.signed_in) return null;
  const who = info.user ? (info.user.display_name ?? info.user.name) : null;
  return (
    <div className="session-menu">
      {who && (
        <span className="session-user" title={info.user?.email ?? info.user?.name}>
          {who}
        </span>
      )}
      <button
        type="button"
        className="ghost"
        disabled={busy}
        onClick={() => {
          setBusy(true);
          signOut().then(
            (next) => window.location.assign(next),
            (error: unknown) => {
              setBusy(false);
              store.getState().notify(messageOf(error));
            },
          );
        }}
      >
        Sign out
      </button>
    </div>
  );
}
