/**
 * Single sign-on on a team: the load balancer may send the provider's answer to another API node than the one the
 * sign-in started at. Two API nodes on one PostgreSQL, a real OpenID provider on loopback, Debian's Chromium:
 * started at node A, answered at node B, the session good on both, the user made once in the team's database.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, launchChromium } from '../e2e/browser';
import { freePort } from '../helpers/free-port';
import { OIDC_ACCOUNTS, startOidcProvider, type TestOidcProvider } from '../helpers/oidc-provider';
import { startPostgres, type ThrowawayPostgres } from '../helpers/postgres';
import { rawRequest, startServiceProcess, type ServiceProcess } from '../helpers/service';
import { teamEnv, teamQuery } from '../helpers/team';

describe.skipIf(!fs.existsSync(CHROMIUM))('single sign-on across a team’s API nodes', { timeout: 240_000 }, () => {
  let pg: ThrowawayPostgres;
  let provider: TestOidcProvider;
  let nodes: ServiceProcess[] = [];
  let databaseUrl = '';

  beforeAll(async () => {
    pg = await startPostgres();
    const team = await teamEnv(pg, 'single_sign_on');
    databaseUrl = team.TAKELINE_DATABASE_URL!;
    const ports = [await freePort(), await freePort()];
    provider = await startOidcProvider({
      redirectUris: ports.map((port) => `http://127.0.0.1:${port}/auth/oidc/callback`),
      postLogoutRedirectUris: ports.map((port) => `http://127.0.0.1:${port}/`),
    });
    const oidc = {
      TAKELINE_OIDC_ISSUER: provider.issuer,
      TAKELINE_OIDC_CLIENT_ID: provider.clientId,
      TAKELINE_OIDC_CLIENT_SECRET: provider.clientSecret,
      // Users signed in by the provider start with no role: the groups give them theirs (docs/roles.md).
      TAKELINE_OIDC_ROLE_MAP: 'editors=admin,reviewers=viewer',
    };
    for (const port of ports) nodes.push(await startServiceProcess({ dataDir: team.TAKELINE_DATA_DIR, env: { ...team, ...oidc, TAKELINE_PORT: String(port) } }));
  }, 180_000);

  afterAll(async () => {
    for (const node of nodes) await node.stop();
    nodes = [];
    await provider?.stop();
    await pg?.stop();
  });

  it('takes the answer to a sign-in started at node A at node B, and the session works on both', async () => {
    const [a, b] = nodes as [ServiceProcess, ServiceProcess];
    const browser = await launchChromium();
    try {
      const page = browser.context.pages()[0] ?? (await browser.context.newPage());
      const held = provider.holdNextCallback();
      await page.goto(`${a.url}/auth/oidc/login`);
      await page.getByLabel('Username').fill('bob');
      await page.getByLabel('Password').fill(OIDC_ACCOUNTS.bob!.password);
      await page.getByRole('button', { name: 'Continue' }).click();
      const callback = new URL(await held);
      expect(callback.origin).toBe(a.url);
      // The balancer sends it to the other node (the cookies of 127.0.0.1 go to either port).
      const atB = `${b.url}${callback.pathname}${callback.search}`;
      const answer = await page.goto(atB);
      expect(answer?.url()).toBe(`${b.url}/`);
      const session = (await browser.context.cookies(b.url)).find((c) => c.name === 'takeline_session')!;
      expect(session).toMatchObject({ httpOnly: true });
      for (const node of [a, b]) {
        const who = await rawRequest(`${node.url}/auth/session`, { headers: { Cookie: `takeline_session=${session.value}` } });
        expect(who.json()).toMatchObject({ signed_in: 'single_sign_on', user: { name: 'bob', display_name: 'Bob Reviewer', email: 'bob@example.org' } });
        expect((await rawRequest(`${node.url}/v1/speech/projects`, { headers: { Cookie: `takeline_session=${session.value}` } })).status).toBe(200);
      }
      const users = await teamQuery<{ name: string; groups_json: string }>(databaseUrl, 'SELECT name, groups_json FROM users WHERE oidc_subject = $1', ['bob']);
      expect(users).toEqual([{ name: 'bob', groups_json: JSON.stringify(OIDC_ACCOUNTS.bob!.groups) }]);
    } finally {
      await browser.close();
    }
  });
});
