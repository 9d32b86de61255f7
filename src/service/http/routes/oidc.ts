import express, { type Request, type Response } from 'express';
import type { ServiceContext } from '../../context';
import { ProviderUnavailable, SignInRefused, type OidcProviderClient } from '../../auth/oidc/provider-client';
import { openTransaction, sealTransaction, TRANSACTION_COOKIE, TRANSACTION_LIFETIME_MS } from '../../auth/oidc/transaction';
import { readCookie } from '../authenticate';
import { requestOrigin } from '../loopback-guard';
import { secureAttribute, sessionCookie } from '../session-cookie';
import { signInFailedPage } from './sign-in-failed-page';
import { actorOf, clientAddress } from '../../audit/actor';
import { FULL_ACCESS } from '../../auth/access';
import { signedIn, signInFailed } from '../../audit/sign-in-events';

export interface OidcRouteDeps {
  provider: OidcProviderClient;
  /** Seals the sign-in transaction cookie; the same on every API node. */
  transactionKey: Buffer;
  users: ServiceContext['users'];
  browserSessions: ServiceContext['browserSessions'];
  /** Sign-ins and refusals are recorded here. */
  audit: ServiceContext['database']['audit'];
  log(line: string): void;
}

/** Only the callback reads it; Lax so the provider's redirect back (a top-level navigation from its site) carries it. */
function transactionCookie(res: Response, value: string, maxAgeSeconds: number): string {
  return `${TRANSACTION_COOKIE}=${value}; Path=/auth/oidc; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${secureAttribute(res)}`;
}

/**
 * `/auth/oidc/login` sends the browser to the provider; `/auth/oidc/callback` takes it back, has openid-client
 * check the answer, links the person to their user (made at the first sign-in) and starts a studio session with the
 * same HttpOnly cookie as the other ways in. Failures are pages a person reads, with a way to try again.
 */
export function oidcRouter(deps: OidcRouteDeps): express.Router {
  const router = express.Router();

  router.get('/login', async (_req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    let begun: Awaited<ReturnType<OidcProviderClient['begin']>>;
    try {
      begun = await deps.provider.begin(`${requestOrigin(res)}/auth/oidc/callback`);
    } catch (error) {
      return failed(res, error, deps, null);
    }
    res.setHeader('Set-Cookie', transactionCookie(res, sealTransaction(deps.transactionKey, begun.transaction), TRANSACTION_LIFETIME_MS / 1000));
    res.redirect(303, begun.url);
  });

  router.get('/callback', async (req: Request, res: Response) => {
    res.setHeader('Cache-Control', 'no-store');
    const address = clientAddress(req.socket.remoteAddress);
    const transaction = openTransaction(deps.transactionKey, readCookie(req.headers.cookie, TRANSACTION_COOKIE));
    if (!transaction) {
      return failed(res, new SignInRefused('This sign-in was not started in this browser, or took longer than ten minutes. Sign in again.'), deps, address);
    }
    // The address the provider was told to come back to, with what it added: the same on whichever node is reached.
    const callbackUrl = new URL(transaction.redirectUri);
    callbackUrl.search = new URL(req.originalUrl, 'http://callback').search;
    try {
      const identity = await deps.provider.finish(callbackUrl, transaction);
      const user = await deps.users.signIn(identity);
      const actor = actorOf({ ...FULL_ACCESS, user: user.name, userDisplayName: user.displayName }, address);
      // Made by this sign-in: its first.
      if (user.createdAt === user.lastSignInAt) {
        await deps.audit.append({ kind: 'user.created', actor, object: { type: 'user', id: user.name }, detail: { issuer: identity.issuer, subject: identity.subject } });
      }
      if (user.disabled) throw new SignInRefused(`The user ${user.name} is disabled on this Takeline server.`);
      const { token, maxAgeSeconds } = await deps.browserSessions.create(Date.now(), null, user.id);
      await deps.audit.append(signedIn(actor, 'single_sign_on', { issuer: identity.issuer }));
      res.setHeader('Set-Cookie', [sessionCookie(res, token, maxAgeSeconds), transactionCookie(res, '', 0)]);
      deps.log(`signed in by single sign-on: ${user.name} (${identity.issuer} ${identity.subject})`);
      res.redirect(303, '/');
    } catch (error) {
      await failed(res, error, deps, address);
    }
  });

  return router;
}

/** `address`: where a refused callback came from, recorded as a failed sign-in (null: not one, the start failed). */
async function failed(res: Response, error: unknown, deps: Pick<OidcRouteDeps, 'audit' | 'log'>, address: string | null): Promise<void> {
  const log = deps.log;
  if (error instanceof SignInRefused) {
    log(`single sign-on refused: ${error.message}`);
    await deps.audit.append(signInFailed(address, 'single_sign_on', error.message));
    res.status(403).type('html').send(signInFailedPage(error.message));
    return;
  }
  if (error instanceof ProviderUnavailable) {
    log(error.message);
    res.status(503).setHeader('Retry-After', '30').type('html').send(signInFailedPage(error.message));
    return;
  }
  throw error;
}
