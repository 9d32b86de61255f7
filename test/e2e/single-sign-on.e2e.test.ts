/**
 * Single sign-on in Debian's Chromium against a real OpenID Connect provider (`oidc-provider`, started here on
 * loopback): the studio's button, the provider's login, a user made at the first sign-in, the HttpOnly session,
 * sign-out at both ends; and what must not sign anyone in: a forged `state`, a replayed code, an expired id token,
 * an account the provider disabled, a user disabled here.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, collectPageErrors, launchChromium } from './browser';
import { buildStudio } from './build-studio';
import { startService, type RunningService } from './service-process';
import { inspectDatabase } from '../helpers/crash';
import { freePort } from '../helpers/free-port';
import { OIDC_ACCOUNTS, startOidcProvider, type TestOidcProvider } from '../helpers/oidc-provider';

const canRun = fs.existsSync(CHROMIUM);

interface UserRow {
  id: string;
  name: string;
  display_name: string | null;
  email: string | null;
  oidc_issuer: string | null;
  oidc_subject: string | null;
  groups_json: string;
  disabled: number;
}

describe.skipIf(!canRun)('single sign-on through an OpenID Connect provider', { timeout: 300_000 }, () => {
  let provider: TestOidcProvider;
  let service: RunningService;
  let browser: { context: BrowserContext; close(): Promise<void> };
  let page: Page;
  let pageErrors: string[] = [];

  const users = () => inspectDatabase(service.dataDir, (db) => db.prepare('SELECT * FROM users ORDER BY created_at').all() as UserRow[]);
  const sessions = () => inspectDatabase(service.dataDir, (db) => db.prepare('SELECT hash, user_id FROM browser_sessions').all() as Array<{ hash: string; user_id: string | null }>);
  const cookie = async (name: string) => (await browser.context.cookies(`${service.url}/auth/oidc/callback`)).find((c) => c.name === name);

  /** From the studio's sign-in page through the provider's login form. */
  async function signInAtProvider(login: string, password = OIDC_ACCOUNTS[login]!.password) {
    await page.goto(`${service.url}/`);
    await page.getByRole('link', { name: 'Sign in with your organisation account' }).click();
    await page.getByLabel('Username').fill(login);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Continue' }).click();
  }

  /** Signs in at the provider but holds its redirect back: the callback address it carried. */
  async function heldCallback(login: string): Promise<string> {
    const held = provider.holdNextCallback();
    await signInAtProvider(login);
    await page.getByText('held').waitFor();
    const callback = await held;
    expect(callback).toMatch(/[?&]code=/);
    return callback;
  }

  const failure = async () => {
    await page.getByRole('heading', { name: 'Sign-in failed' }).waitFor();
    return (await page.locator('#reason').textContent()) ?? '';
  };

  beforeAll(async () => {
    await buildStudio();
    const port = await freePort();
    provider = await startOidcProvider({
      redirectUris: [`http://127.0.0.1:${port}/auth/oidc/callback`],
      postLogoutRedirectUris: [`http://127.0.0.1:${port}/`],
    });
    service = await startService({
      env: {
        TAKELINE_PORT: String(port),
        TAKELINE_OIDC_ISSUER: provider.issuer,
        TAKELINE_OIDC_CLIENT_ID: provider.clientId,
        TAKELINE_OIDC_CLIENT_SECRET: provider.clientSecret,
        // Users signed in by the provider start with no role: the groups give them theirs (docs/roles.md).
        TAKELINE_OIDC_ROLE_MAP: 'editors=admin,reviewers=viewer',
      },
    });
    browser = await launchChromium();
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    pageErrors = collectPageErrors(page);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    await provider?.stop();
  });

  it('signs in with the button on the sign-in page: a user made at the first sign-in, the session an HttpOnly cookie', async () => {
    await signInAtProvider('ada');
    await page.getByText('No projects yet').waitFor();
    await page.getByText('Ada Lovelace').waitFor();
    const made = users();
    expect(made).toHaveLength(1);
    expect(made[0]).toMatchObject({
      name: 'ada',
      display_name: 'Ada Lovelace',
      email: 'ada@example.org',
      oidc_issuer: provider.issuer,
      oidc_subject: 'ada',
      disabled: 0,
    });
    expect(JSON.parse(made[0]!.groups_json)).toEqual(['editors']);
    expect(sessions().filter((s) => s.user_id === made[0]!.id)).toHaveLength(1);
    const session = await cookie('takeline_session');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
    // The sign-in's transaction cookie is gone once used; the page holds no token of any kind.
    expect(await cookie('takeline_oidc')).toBeUndefined();
    expect(await page.evaluate(() => document.cookie)).toBe('');
    // The studio's requests are the user's: a project made now, listed.
    const created = await page.evaluate(async () => (await fetch('/v1/speech/projects', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ key: 'sso', name: 'SSO' }) })).status);
    expect(created).toBe(201);
  });

  it('signs the same person in again as the same user, the provider keeping its own session', async () => {
    await page.goto(`${service.url}/`);
    // Still signed in at the provider: straight back, no form.
    await page.goto(`${service.url}/auth/oidc/login`);
    await page.getByText('Ada Lovelace').waitFor();
    expect(users()).toHaveLength(1);
  });

  it('signs out: the session and its cookie gone here, and the provider session ended there', async () => {
    const before = (await cookie('takeline_session'))!.value;
    await page.goto(`${service.url}/`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    // RP-initiated logout at the provider, which returns to the studio.
    await page.getByRole('button', { name: 'Yes, sign me out' }).click();
    await page.waitForURL(`${service.url}/`);
    await page.getByText('Sign in to the studio').waitFor();
    expect(await cookie('takeline_session')).toBeUndefined();
    expect(sessions().map((s) => s.hash)).not.toContain(crypto.createHash('sha256').update(before).digest('hex'));
    const stale = await fetch(`${service.url}/v1/speech/projects`, { headers: { Cookie: `takeline_session=${before}` } });
    expect(stale.status).toBe(401);
    // The provider asks for the password again.
    await page.getByRole('link', { name: 'Sign in with your organisation account' }).click();
    await page.getByLabel('Password').waitFor();
  });

  it('refuses a forged state; the provider answer with its own state then signs in', async () => {
    await browser.context.clearCookies();
    const genuine = await heldCallback('bob');
    const forged = new URL(genuine);
    forged.searchParams.set('state', 'forged-state-forged-state-forged-state');
    await page.goto(forged.href);
    expect(await failure()).toMatch(/state/i);
    expect(users().map((u) => u.name)).toEqual(['ada']);
    await page.goto(genuine);
    await page.getByText('Bob Reviewer').waitFor();
    expect(users().map((u) => u.name)).toEqual(['ada', 'bob']);
  });

  it('refuses a replayed code, even with the sign-in transaction that went with it', async () => {
    await browser.context.clearCookies();
    const callback = await heldCallback('bob');
    const transaction = (await cookie('takeline_oidc'))!;
    await page.goto(callback);
    await page.getByText('Bob Reviewer').waitFor();
    const before = sessions().length;
    // Another browser with the same code and the same transaction cookie.
    await browser.context.clearCookies();
    await browser.context.addCookies([transaction]);
    await page.goto(callback);
    expect(await failure()).toMatch(/invalid_grant/);
    expect(sessions()).toHaveLength(before);
    expect(await cookie('takeline_session')).toBeUndefined();
  });

  it('refuses an id token whose expiry has passed', async () => {
    await browser.context.clearCookies();
    provider.issueExpiredIdTokens(true);
    try {
      await signInAtProvider('ada');
      expect(await failure()).toMatch(/"exp"|expir/i);
    } finally {
      provider.issueExpiredIdTokens(false);
    }
    expect(await cookie('takeline_session')).toBeUndefined();
  });

  it('refuses an account the provider disabled, and makes no user for it', async () => {
    await browser.context.clearCookies();
    await signInAtProvider('dora');
    expect(await failure()).toMatch(/access_denied: This account is disabled/);
    expect(users().map((u) => u.name)).not.toContain('dora');
    expect(await cookie('takeline_session')).toBeUndefined();
  });

  it('refuses a user disabled here, and ends their live sessions at their next request', async () => {
    await browser.context.clearCookies();
    await signInAtProvider('ada');
    await page.getByText('Ada Lovelace').waitFor();
    const db = new Database(path.join(service.dataDir, 'takeline.db'));
    try {
      db.prepare("UPDATE users SET disabled = 1 WHERE name = 'ada'").run();
    } finally {
      db.close();
    }
    await page.reload();
    await page.getByText('Sign in to the studio').waitFor();
    await page.getByRole('link', { name: 'Sign in with your organisation account' }).click();
    // Still signed in at the provider, refused here.
    expect(await failure()).toMatch(/ada is disabled/);
    expect(pageErrors.filter((e) => !/401|403/.test(e))).toEqual([]);
  });
});
