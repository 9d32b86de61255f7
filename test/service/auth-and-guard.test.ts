import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest, startServiceProcess, type ServiceProcess } from '../helpers/service';
import { repoRoot } from '../helpers/paths';

const EXTRA_KEY = 'tl_' + 'CiKey0123456789abcdefghijklmnopqrstuvw';

describe('keys, Host/Origin guard and error shapes', () => {
  let svc: ServiceProcess;
  beforeAll(async () => {
    svc = await startServiceProcess({ env: { TAKELINE_API_KEY: EXTRA_KEY } });
  });
  afterAll(async () => {
    await svc?.stop();
  });

  const keysCli = (...args: string[]) =>
    spawnSync(process.execPath, ['--import', 'tsx', 'src/service/cli/keys.ts', ...args], {
      cwd: repoRoot,
      env: { ...process.env, TAKELINE_DATA_DIR: svc.dataDir },
      encoding: 'utf8',
    });

  it('prints the listening line and a created key once, and answers /healthz without a key', async () => {
    expect(svc.output()).toMatch(/^takeline listening on http:\/\/127\.0\.0\.1:\d+$/m);
    expect(svc.output()).toContain(svc.key);
    expect(svc.key).toMatch(/^tl_[0-9A-Za-z]{32,}$/);
    const res = await fetch(`${svc.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('accepts the key as Bearer, as X-API-Key, and TAKELINE_API_KEY', async () => {
    const variants: Array<Record<string, string>> = [{ Authorization: `Bearer ${svc.key}` }, { 'X-API-Key': svc.key }, { Authorization: `Bearer ${EXTRA_KEY}` }];
    for (const headers of variants) {
      const res = await fetch(`${svc.url}/v1/speech/projects`, { headers });
      expect(res.status).toBe(200);
    }
  });

  it('refuses missing and wrong keys with 401 in each prefix shape', async () => {
    const speech = await fetch(`${svc.url}/v1/speech/projects`);
    expect(speech.status).toBe(401);
    expect(await speech.json()).toEqual({ detail: expect.stringMatching(/API key/) });
    const audio = await fetch(`${svc.url}/v1/audio/models`, { headers: { Authorization: 'Bearer tl_wrongwrongwrongwrongwrongwrongwrong12' } });
    expect(audio.status).toBe(401);
    const body = await audio.json();
    expect(body.error).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key' });
    expect(Object.keys(body.error).sort()).toEqual(['code', 'message', 'param', 'type']);
    const badScheme = await fetch(`${svc.url}/v1/speech/projects`, { headers: { Authorization: `Basic ${svc.key}` } });
    expect(badScheme.status).toBe(401);
  });

  it('chooses the error shape by the path alone: a query string never changes it', async () => {
    for (const url of ['/v1/models?x=1', '/v1/audio/models?format=json', '/v1/models/nope?x=1']) {
      const res = await fetch(`${svc.url}${url}`);
      expect(res.status, url).toBe(401);
      const body = await res.json();
      expect(Object.keys(body), url).toEqual(['error']);
      expect(body.error).toMatchObject({ type: 'authentication_error' });
    }
    const missing = await fetch(`${svc.url}/v1/models/nope?x=1`, { headers: { Authorization: `Bearer ${svc.key}` } });
    expect(missing.status).toBe(404);
    expect((await missing.json()).error).toMatchObject({ type: 'not_found_error', code: 'model_not_found' });
    const speech = await fetch(`${svc.url}/v1/speech/projects?x=/v1/audio/`);
    expect(await speech.json()).toEqual({ detail: expect.stringMatching(/API key/) });
  });

  it('creates, lists and revokes keys with npm run keys; a revoked key is refused at once', async () => {
    const created = keysCli('create', 'script');
    expect(created.status).toBe(0);
    const newKey = created.stdout.trim();
    expect(newKey).toMatch(/^tl_[0-9A-Za-z]{32,}$/);
    expect((await fetch(`${svc.url}/v1/speech/projects`, { headers: { 'X-API-Key': newKey } })).status).toBe(200);
    const list = keysCli('list');
    expect(list.stdout).toContain('script');
    expect(list.stdout).not.toContain(newKey);
    const id = list.stdout.split('\n').find((l) => l.includes('script'))!.split(/\s+/)[0]!;
    expect(keysCli('revoke', id).status).toBe(0);
    expect(keysCli('list').stdout).toMatch(/script.*revoked/);
    const refused = await fetch(`${svc.url}/v1/speech/projects`, { headers: { 'X-API-Key': newKey } });
    expect(refused.status).toBe(401);
    expect(keysCli('revoke', 'no-such-key').status).toBe(1);
    expect(keysCli('bogus').status).toBe(2);
  });

  it('refuses a Host that is not the loopback service, with 403', async () => {
    for (const host of ['evil.example', `evil.example:${svc.port}`, `127.0.0.1:${svc.port + 1}`, `attacker.127.0.0.1.nip.io:${svc.port}`]) {
      const res = await rawRequest(`${svc.url}/v1/speech/projects`, { headers: { Host: host, Authorization: `Bearer ${svc.key}` } });
      expect(res.status).toBe(403);
      expect(res.json()).toEqual({ detail: expect.stringMatching(/loopback/) });
    }
    const healthz = await rawRequest(`${svc.url}/healthz`, { headers: { Host: 'evil.example' } });
    expect(healthz.status).toBe(403);
    const ok = await rawRequest(`${svc.url}/healthz`, { headers: { Host: `localhost:${svc.port}` } });
    expect(ok.status).toBe(200);
  });

  it('refuses an Origin other than its own, with 403, and accepts its own', async () => {
    for (const origin of ['https://evil.example', 'null', `http://127.0.0.1:${svc.port + 1}`]) {
      const res = await rawRequest(`${svc.url}/v1/audio/models`, { headers: { Origin: origin, Authorization: `Bearer ${svc.key}` } });
      expect(res.status).toBe(403);
      expect(res.json().error.type).toBe('permission_error');
    }
    const own = await rawRequest(`${svc.url}/v1/audio/models`, { headers: { Origin: svc.url, Authorization: `Bearer ${svc.key}` } });
    expect(own.status).toBe(200);
  });

  it('answers unknown routes in the prefix shape, without internals', async () => {
    const auth = { Authorization: `Bearer ${svc.key}` };
    const speech = await fetch(`${svc.url}/v1/speech/nothing-here`, { headers: auth });
    expect(speech.status).toBe(404);
    expect(await speech.json()).toEqual({ detail: expect.any(String) });
    const audio = await fetch(`${svc.url}/v1/audio/nothing-here`, { headers: auth });
    expect(audio.status).toBe(404);
    expect((await audio.json()).error.type).toBe('not_found_error');
    const traversal = await rawRequest(`${svc.url}/v1/speech/transcriptions/..%2f..%2fetc%2fpasswd`, { headers: auth });
    expect(traversal.status).toBe(422);
    expect(traversal.text()).not.toMatch(/\/tmp|\/work|SQLITE|at .*\.ts/);
  });

  it('signs in a browser once with the printed link and sets an HttpOnly SameSite cookie', async () => {
    const first = await fetch(svc.signInUrl, { redirect: 'manual' });
    expect(first.status).toBe(303);
    const cookie = first.headers.get('set-cookie')!;
    expect(cookie).toMatch(/takeline_session=[^;]+; Path=\/; HttpOnly; SameSite=Strict/);
    const session = cookie.split(';')[0]!;
    const withCookie = await fetch(`${svc.url}/v1/speech/projects`, { headers: { Cookie: session } });
    expect(withCookie.status).toBe(200);
    const again = await fetch(svc.signInUrl, { redirect: 'manual' });
    expect(again.status).toBe(403);
    const forged = await fetch(`${svc.url}/v1/speech/projects`, { headers: { Cookie: 'takeline_session=forged' } });
    expect(forged.status).toBe(401);
  });
});

describe('start-up configuration', () => {
  it('refuses a malformed TAKELINE_API_KEY with a clear message', async () => {
    await expect(startServiceProcess({ env: { TAKELINE_API_KEY: 'not-a-key' } })).rejects.toThrow(/TAKELINE_API_KEY must be/);
  });
});
