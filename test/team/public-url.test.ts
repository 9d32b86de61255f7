import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type ThrowawayPostgres } from '../helpers/postgres';
import { rawRequest, startServiceProcess, type ServiceProcess } from '../helpers/service';
import { teamEnv } from '../helpers/team';

/**
 * A team API node behind a load balancer: it listens on every interface (TAKELINE_HOST=0.0.0.0) and answers
 * at its public address (TAKELINE_PUBLIC_URL) as the balancer passes on the user's Host, and from the studio
 * served there (its Origin); every other Host and Origin is still refused.
 */
const PUBLIC = 'https://takeline.example.test';
let pg: ThrowawayPostgres;
let api: ServiceProcess;
/** This machine's address on a non-loopback interface (where a load balancer would connect). */
const lanAddress = Object.values(os.networkInterfaces())
  .flat()
  .find((i) => i && !i.internal && i.family === 'IPv4')?.address;

beforeAll(async () => {
  pg = await startPostgres();
  const team = await teamEnv(pg, 'public_url');
  api = await startServiceProcess({ dataDir: team.TAKELINE_DATA_DIR, env: { ...team, TAKELINE_HOST: '0.0.0.0', TAKELINE_PUBLIC_URL: PUBLIC } });
}, 120_000);
afterAll(async () => {
  await api?.stop();
  await pg?.stop();
});

describe('a team API node at its public address', () => {
  it.skipIf(!lanAddress)('is reached on a non-loopback interface with the public Host, and refuses any other Host', async () => {
    const at = `http://${lanAddress}:${api.port}`;
    expect((await rawRequest(`${at}/healthz`, { headers: { Host: 'takeline.example.test' } })).status).toBe(200);
    const projects = await rawRequest(`${at}/v1/speech/projects`, { headers: { Host: 'takeline.example.test', Authorization: `Bearer ${api.key}` } });
    expect(projects.status).toBe(200);
    for (const host of ['evil.example', `${lanAddress}:${api.port}`, 'takeline.example.test:8443']) {
      const refused = await rawRequest(`${at}/healthz`, { headers: { Host: host } });
      expect(refused.status, host).toBe(403);
    }
    // The loopback address still works on the node itself.
    expect((await rawRequest(`${api.url}/healthz`)).status).toBe(200);
  });

  it('lets the studio served at the public address sign in and write, and no other site', async () => {
    const signIn = (origin: string) =>
      rawRequest(`${api.url}/auth/signin`, {
        method: 'POST',
        headers: { Host: 'takeline.example.test', Origin: origin, 'Content-Type': 'application/json' },
        body: JSON.stringify({ key: api.key }),
      });
    const ok = await signIn(PUBLIC);
    expect(ok.status).toBe(204);
    expect(String(ok.headers['set-cookie'])).toMatch(/^takeline_session=/);
    // Users reach the public address over https (TLS ends at the balancer): the cookie is only ever sent back over it.
    expect(String(ok.headers['set-cookie'])).toMatch(/; Secure$/);
    expect((await signIn('https://evil.example')).status).toBe(403);
    expect((await signIn('http://takeline.example.test')).status).toBe(403);
  });

  it('writes its https public address, not the http it hears from the balancer, into the addresses it gives out', async () => {
    const headers = { Host: 'takeline.example.test', Authorization: `Bearer ${api.key}` };
    const doc = (await rawRequest(`${api.url}/v1/openapi.json`, { headers })).json() as { servers: Array<{ url: string }> };
    expect(doc.servers[0]!.url).toBe(PUBLIC);
    // On the node's own loopback address it is the plain loopback origin, and its cookie has no Secure.
    const local = (await rawRequest(`${api.url}/v1/openapi.json`, { headers: { Authorization: `Bearer ${api.key}` } })).json() as { servers: Array<{ url: string }> };
    expect(local.servers[0]!.url).toBe(api.url);
    const signIn = await rawRequest(`${api.url}/auth/signin`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ key: api.key }) });
    expect(String(signIn.headers['set-cookie'])).not.toMatch(/Secure/);
  });
});
