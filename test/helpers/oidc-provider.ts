/**
 * A real OpenID Connect provider (the certified `oidc-provider` package) on loopback, for the single sign-on tests:
 * one confidential client registered for a service's callback, a few accounts with passwords, one of them
 * disabled (the provider refuses it with `access_denied`), its own login form, consent granted at once, and
 * RP-initiated logout. `issueExpiredIdTokens` makes it sign id tokens whose `exp` has passed.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface TestAccount {
  password: string;
  name: string;
  email: string;
  groups: string[];
  /** Refused by the provider at its login. */
  disabled?: boolean;
}

export const OIDC_ACCOUNTS: Record<string, TestAccount> = {
  ada: { password: 'ada-password', name: 'Ada Lovelace', email: 'ada@example.org', groups: ['editors'] },
  bob: { password: 'bob-password', name: 'Bob Reviewer', email: 'bob@example.org', groups: ['reviewers', 'night-shift'] },
  dora: { password: 'dora-password', name: 'Dora Gone', email: 'dora@example.org', groups: [], disabled: true },
};

export interface TestOidcProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The id tokens it signs from now on have already expired (an hour ago), or not. */
  issueExpiredIdTokens(on: boolean): void;
  /**
   * The provider's next redirect back to the service is held: the browser gets a page saying "held" instead, and
   * the promise the callback address (with its code and state), to be visited, altered or replayed by the test.
   */
  holdNextCallback(): Promise<string>;
  /** Disables (or enables) an account at the provider. */
  setDisabled(login: string, disabled: boolean): void;
  stop(): Promise<void>;
}

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function loginPage(uid: string, message = ''): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>Test provider: sign in</title></head><body>
<h1>Test provider</h1>${message ? `<p role="alert">${escape(message)}</p>` : ''}
<form method="post" action="/interaction/${escape(uid)}/login">
<label>Username <input name="login" autocomplete="off"></label>
<label>Password <input name="password" type="password"></label>
<button type="submit">Continue</button></form></body></html>`;
}

async function formBody(req: http.IncomingMessage): Promise<URLSearchParams> {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  return new URLSearchParams(text);
}

/** `redirectUri` and `postLogoutRedirectUri`: the service's callback and its studio page, registered for the client. */
export async function startOidcProvider(options: { redirectUris: string[]; postLogoutRedirectUris: string[] }): Promise<TestOidcProvider> {
  const accounts = structuredClone(OIDC_ACCOUNTS);
  let expired = false;
  let holding: ((location: string) => void) | null = null;
  let handler: http.RequestListener = (_req, res) => res.writeHead(503).end();
  const server = http.createServer((req, res) => handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = 'takeline-test';
  const clientSecret = 'a-client-secret-for-the-tests-only-0123456789';

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: options.redirectUris,
        post_logout_redirect_uris: options.postLogoutRedirectUris,
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    async findAccount(_ctx: unknown, id: string) {
      const account = accounts[id];
      if (!account) return undefined;
      return {
        accountId: id,
        claims: async () => ({ sub: id, preferred_username: id, name: account.name, email: account.email, email_verified: true, groups: account.groups }),
      };
    },
    claims: { openid: ['sub'], profile: ['name', 'preferred_username', 'groups'], email: ['email', 'email_verified'] },
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: false },
      rpInitiatedLogout: {
        enabled: true,
        logoutSource: async (ctx: { body: string }, form: string) => {
          ctx.body = `<!doctype html><html><body><h1>Sign out of the test provider?</h1>${form}<button type="submit" form="op.logoutForm" value="yes" name="logout">Yes, sign me out</button></body></html>`;
        },
      },
    },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    cookies: { keys: ['test-provider-cookie-key'] },
    ttl: { IdToken: 300, AccessToken: 300, AuthorizationCode: 60, Session: 3600, Interaction: 600, Grant: 3600 },
    // The same id tokens in every run would be nicer, but its development keys are fine on loopback.
  });

  // Expired id tokens: signed with an `exp` an hour ago (openid-client allows 30 s of clock skew).
  const issue = provider.IdToken.prototype.issue;
  provider.IdToken.prototype.issue = function (this: unknown, issueOptions = {}) {
    if (expired && issueOptions.use === 'idtoken') issueOptions = { ...issueOptions, expiresAt: Math.floor(Date.now() / 1000) - 3600 };
    return issue.call(this, issueOptions);
  };

  const providerCallback = provider.callback();
  handler = async (req, res) => {
    const match = /^\/interaction\/([\w-]+)(\/login)?$/.exec(req.url?.split('?')[0] ?? '');
    if (!match) {
      if (holding) holdRedirect(res);
      return providerCallback(req, res);
    }
    try {
      const details = await provider.interactionDetails(req, res);
      if (details.prompt.name === 'consent') {
        // A first-party application: consent is given at once.
        const grant = details.grantId
          ? ((await provider.Grant.find(details.grantId)) ?? new provider.Grant({ accountId: details.session!.accountId, clientId: details.params.client_id }))
          : new provider.Grant({ accountId: details.session!.accountId, clientId: details.params.client_id });
        if (details.prompt.details.missingOIDCScope) grant.addOIDCScope(details.prompt.details.missingOIDCScope.join(' '));
        if (details.prompt.details.missingOIDCClaims) grant.addOIDCClaims(details.prompt.details.missingOIDCClaims);
        return await provider.interactionFinished(req, res, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true });
      }
      if (req.method !== 'POST' || !match[2]) {
        res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(loginPage(details.uid));
        return;
      }
      const body = await formBody(req);
      const login = body.get('login') ?? '';
      const account = accounts[login];
      if (!account || account.password !== body.get('password')) {
        res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(loginPage(details.uid, 'Wrong username or password.'));
        return;
      }
      if (account.disabled) {
        return await provider.interactionFinished(req, res, { error: 'access_denied', error_description: 'This account is disabled.' }, { mergeWithLastSubmission: false });
      }
      return await provider.interactionFinished(req, res, { login: { accountId: login } }, { mergeWithLastSubmission: false });
    } catch (error) {
      res.writeHead(500, { 'Content-Type': 'text/plain' }).end(String(error));
    }
  };

  function holdRedirect(res: http.ServerResponse): void {
    const end = res.end.bind(res) as (body?: string) => http.ServerResponse;
    res.end = ((...args: unknown[]) => {
      const location = res.getHeader('location');
      if (holding && typeof location === 'string' && options.redirectUris.some((uri) => location.startsWith(`${uri}?`))) {
        holding(location);
        holding = null;
        res.statusCode = 200;
        res.removeHeader('location');
        res.removeHeader('content-length');
        res.setHeader('content-type', 'text/plain');
        return end('held');
      }
      return (end as (...a: unknown[]) => http.ServerResponse)(...args);
    }) as typeof res.end;
  }

  return {
    issuer,
    holdNextCallback: () => new Promise<string>((resolve) => (holding = resolve)),
    clientId,
    clientSecret,
    issueExpiredIdTokens: (on) => {
      expired = on;
    },
    setDisabled: (login, disabled) => {
      accounts[login]!.disabled = disabled;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
