import express from 'express';
import type { ServiceContext } from '../../context';
import type { OidcProviderClient } from '../../auth/oidc/provider-client';
import { readCookie, SESSION_COOKIE } from '../authenticate';
import { requestOrigin } from '../loopback-guard';
import { clearedSessionCookie } from '../session-cookie';

export interface BrowserSessionRouteDeps {
  browserSessions: ServiceContext['browserSessions'];
  users: ServiceContext['users'];
  /** The provider of single sign-on, when configured. */
  oidc: OidcProviderClient | null;
}

/** What the studio's sign-in page and top bar need: how one signs in here, who is signed in, and signing out. */
export interface SessionInfo {
  /** The sign-in page offers the organisation's sign-in (`/auth/oidc/login`). */
  single_sign_on: boolean;
  /** How this browser's session was signed in; null without one. */
  signed_in: 'single_sign_on' | 'key' | 'link' | null;
  user: { name: string; display_name: string | null; email: string | null } | null;
}

export function browserSessionRouter(deps: BrowserSessionRouteDeps): express.Router {
  const router = express.Router();

  router.get('/session', async (req, res) => {
    const token = readCookie(req.headers.cookie, SESSION_COOKIE);
    const session = token ? await deps.browserSessions.sessionOf(token) : null;
    const user = session?.user && !session.user.disabled ? await deps.users.byId(session.user.id) : null;
    const info: SessionInfo = {
      single_sign_on: deps.oidc !== null,
      signed_in: session === null || session.user?.disabled ? null : session.user ? 'single_sign_on' : session.keyId ? 'key' : 'link',
      user: user && { name: user.name, display_name: user.displayName, email: user.email },
    };
    res.setHeader('Cache-Control', 'no-store');
    res.json(info);
  });

  // The studio's POST (fetch: a form's would carry `Origin: null` under the no-referrer policy, which the guard
  // refuses). The session and its cookie go; a single sign-on session also ends at the provider when it offers
  // RP-initiated logout: `next` is where the studio sends the browser (the provider, which returns to the studio).
  router.post('/signout', async (req, res) => {
    const token = readCookie(req.headers.cookie, SESSION_COOKIE);
    const session = token ? await deps.browserSessions.sessionOf(token) : null;
    if (token) await deps.browserSessions.remove(token);
    res.setHeader('Set-Cookie', clearedSessionCookie(res));
    res.setHeader('Cache-Control', 'no-store');
    const home = `${requestOrigin(res)}/`;
    const atProvider = session?.user && deps.oidc ? await deps.oidc.endSessionUrl(home).catch(() => null) : null;
    res.json({ next: atProvider ?? '/' });
  });

  return router;
}
