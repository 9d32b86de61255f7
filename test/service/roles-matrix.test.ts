import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { multipartBody, rawRequest, startServiceProcess, type ServiceProcess } from '../helpers/service';
import { audioDir, repoRoot } from '../helpers/paths';
import { startPostgres, type ThrowawayPostgres } from '../helpers/postgres';
import { teamEnv } from '../helpers/team';
import { openApiDocument } from '../../src/service/openapi/document';
import { ROUTE_ROLES, type Requirement } from '../../src/service/http/route-roles';
import { allows, type Role } from '../../src/service/auth/roles';

const FLAC = fs.readFileSync(path.join(audioDir, 'asr', 'amateur_LJ001-0001.flac'));
const METHODS = ['get', 'put', 'post', 'patch', 'delete'] as const;

interface Operation {
  method: string;
  path: string;
  requirement: Requirement;
}

/** Every operation of the OpenAPI document, with the role the service's table gives it. */
function documentedOperations(): Operation[] {
  const document = openApiDocument() as unknown as { paths: Record<string, Record<string, unknown>> };
  const operations: Operation[] = [];
  for (const [route, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      if (!item[method]) continue;
      operations.push({ method: method.toUpperCase(), path: route, requirement: ROUTE_ROLES[`${method.toUpperCase()} ${route}`]! });
    }
  }
  return operations;
}

describe('the role table', () => {
  it("follows the issue's roles: viewers read and leave notes, editors change the work, admins manage projects, users and models", () => {
    for (const [operation, requirement] of Object.entries(ROUTE_ROLES)) {
      const [method, route] = operation.split(' ') as [string, string];
      if (requirement === 'public' || requirement === 'signed_in') {
        expect(method, operation).toBe('GET');
        continue;
      }
      if (/^\/v1\/admin\//.test(route) || /models\/whisper\/\{name\}/.test(route) && method !== 'GET') expect(requirement, operation).toBe('admin');
      else if (method === 'GET') expect(requirement, operation).toBe('viewer');
      else if (route.endsWith('/notes')) expect(requirement, operation).toBe('viewer');
      else expect(['editor', 'admin'], operation).toContain(requirement);
    }
    expect(ROUTE_ROLES['POST /v1/speech/projects']).toBe('admin');
    expect(ROUTE_ROLES['DELETE /v1/speech/transcriptions/{session_id}']).toBe('admin');
    expect(ROUTE_ROLES['POST /v1/speech/transcriptions/{session_id}/dubs/{dub_id}/revoice']).toBe('editor');
    expect(ROUTE_ROLES['PATCH /v1/speech/transcriptions/{session_id}/media']).toBe('editor');
  });

  it('has an entry for every operation of the OpenAPI document, and none for an operation it lacks', () => {
    const operations = documentedOperations();
    const documented = operations.map((o) => `${o.method} ${o.path}`).sort();
    expect(documented.filter((o) => ROUTE_ROLES[o] === undefined)).toEqual([]);
    expect(Object.keys(ROUTE_ROLES).sort()).toEqual(documented);
    // The document names each operation's role, as the service enforces it.
    const document = openApiDocument() as unknown as { paths: Record<string, Record<string, { 'x-takeline-role'?: string }>> };
    for (const o of operations) expect(document.paths[o.path]![o.method.toLowerCase()]!['x-takeline-role'], `${o.method} ${o.path}`).toBe(o.requirement);
  });
});

/**
 * Each caller's roles: for the whole team, and on project alpha (where the recording is) and on beta. A caller
 * who sees alpha only through beta's role gets 404 for everything of alpha.
 */
interface Caller {
  name: string;
  team: Role | null;
  onAlpha: Role | null;
  onBeta: Role | null;
  headers: Record<string, string>;
}

const roleOnAlpha = (c: Caller) => (c.onAlpha === null ? c.team : allows(c.team, c.onAlpha) ? c.team : c.onAlpha);
const best = (c: Caller) => [c.team, c.onAlpha, c.onBeta].reduce<Role | null>((a, b) => (b !== null && (a === null || allows(b, a)) ? b : a), null);

// A team server (PostgreSQL; uploads stay queued: no worker is needed), with two API nodes over the same database.
describe('every operation with each role (team server)', () => {
  let pg: ThrowawayPostgres;
  let env: Record<string, string>;
  let node: ServiceProcess;
  let other: ServiceProcess;
  let owner: Record<string, string>;
  let sessionA: string;
  const callers: Caller[] = [];

  const cli = (script: 'keys' | 'users', ...args: string[]) => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', `src/service/cli/${script}.ts`, ...args], { cwd: repoRoot, env: { ...process.env, ...env }, encoding: 'utf8' });
    expect(run.status, `${script} ${args.join(' ')}: ${run.stderr}`).toBe(0);
    return run.stdout.trim();
  };
  const call = (svc: ServiceProcess, method: string, route: string, headers: Record<string, string>, json?: unknown) =>
    fetch(`${svc.url}${route}`, {
      method,
      headers: json === undefined ? headers : { ...headers, 'Content-Type': 'application/json' },
      body: json === undefined ? undefined : JSON.stringify(json),
    });

  beforeAll(async () => {
    pg = await startPostgres();
    env = await teamEnv(pg, 'roles');
    node = await startServiceProcess({ env, dataDir: env.TAKELINE_DATA_DIR });
    other = await startServiceProcess({ env, dataDir: env.TAKELINE_DATA_DIR });
    owner = { Authorization: `Bearer ${node.key}` };
    for (const key of ['alpha', 'beta']) expect((await call(node, 'POST', '/v1/speech/projects', owner, { key, name: key })).status).toBe(201);
    const { body, contentType } = multipartBody([
      { name: 'project_key', value: 'alpha' },
      { name: 'file', file: FLAC, filename: 'a.flac' },
    ]);
    const made = await rawRequest(`${node.url}/v1/speech/transcriptions`, { method: 'POST', headers: { ...owner, 'Content-Type': contentType }, body });
    expect(made.status).toBe(201);
    sessionA = made.json().id;
    const people: Array<Omit<Caller, 'headers'>> = [
      { name: 'vera', team: 'viewer', onAlpha: null, onBeta: null },
      { name: 'eddie', team: 'editor', onAlpha: null, onBeta: null },
      { name: 'ann', team: 'admin', onAlpha: null, onBeta: null },
      // An admin of another project only: alpha is not theirs to see.
      { name: 'bea', team: null, onAlpha: null, onBeta: 'admin' },
      // A viewer of the team who edits alpha.
      { name: 'pia', team: 'viewer', onAlpha: 'editor', onBeta: null },
    ];
    for (const person of people) {
      const key = cli('keys', 'create', `${person.name}-key`, '--user', person.name);
      if (person.team) cli('users', 'role', person.name, person.team);
      if (person.onAlpha) cli('users', 'role', person.name, person.onAlpha, '--project', 'alpha');
      if (person.onBeta) cli('users', 'role', person.name, person.onBeta, '--project', 'beta');
      callers.push({ ...person, headers: { Authorization: `Bearer ${key}` } });
    }
  }, 240_000);
  afterAll(async () => {
    await node?.stop();
    await other?.stop();
    await pg?.stop();
  });

  /** A concrete address: the recording and project are alpha's; other ids name nothing (or fail validation). */
  const address = (route: string) =>
    route
      .replace('{session_id}', sessionA)
      .replace('{project}', 'alpha')
      .replace('{name}', 'no-such-model')
      .replace('{user_id}', 'vera')
      .replace('{dub_id}', '00000000-0000-4000-8000-000000000000')
      .replace(/\{[a-z_]+\}/g, '1');

  /** What the caller should get: 'refused' (403 naming the role), 'hidden' (404: another project's), or 'allowed' (anything but 403). */
  const expected = (caller: Caller, op: Operation): 'refused' | 'hidden' | 'allowed' => {
    const needed = op.requirement as Role;
    if (/\{session_id\}|\{project\}/.test(op.path)) {
      if (caller.team === null && caller.onAlpha === null) return 'hidden';
      return allows(roleOnAlpha(caller), needed) ? 'allowed' : 'refused';
    }
    if (needed === 'admin') return allows(caller.team, 'admin') ? 'allowed' : 'refused';
    return allows(best(caller), needed) ? 'allowed' : 'refused';
  };

  it('answers 403 naming the role exactly where the role is short, for every documented operation', async () => {
    const operations = documentedOperations()
      .filter((o) => o.requirement !== 'public')
      // Deleting the recording last: every other operation still finds it.
      .sort((a, b) => Number(a.method === 'DELETE' && a.path.endsWith('{session_id}')) - Number(b.method === 'DELETE' && b.path.endsWith('{session_id}')));
    const failures: string[] = [];
    let refusals = 0;
    for (const caller of [...callers].sort((a, b) => Number(a.name === 'ann') - Number(b.name === 'ann'))) {
      for (const op of operations) {
        // No body: a role is checked before any body is read, and what is allowed then fails validation (nothing
        // is made; a multipart route answering before reading a body would close the connection under it).
        let res: Response;
        try {
          res = await call(node, op.method, address(op.path), caller.headers);
        } catch {
          // A kept-alive connection the node closed while the keys were made: once more, on a new one.
          res = await call(node, op.method, address(op.path), caller.headers);
        }
        const text = await res.text();
        const want = op.requirement === 'signed_in' ? 'allowed' : expected(caller, op);
        const label = `${caller.name}: ${op.method} ${op.path} → ${res.status} ${text.slice(0, 160)}`;
        if (want === 'refused') {
          refusals++;
          if (res.status !== 403 || !text.includes(`needs the ${op.requirement} role`)) failures.push(`expected 403 naming ${op.requirement}; ${label}`);
        } else if (want === 'hidden') {
          if (res.status !== 404) failures.push(`expected 404; ${label}`);
        } else if (res.status === 403) {
          failures.push(`expected no 403; ${label}`);
        }
      }
    }
    expect(failures).toEqual([]);
    // The matrix did refuse: viewers, editors and the per-project callers each fell short somewhere.
    expect(refusals).toBeGreaterThan(50);
    // The admin's delete went last and through.
    expect((await call(node, 'GET', `/v1/speech/transcriptions/${sessionA}`, owner)).status).toBe(404);
  }, 600_000);

  it('holds a role change on the very next request, on another API node', async () => {
    const vera = callers.find((c) => c.name === 'vera')!;
    const ann = callers.find((c) => c.name === 'ann')!;
    const vocabulary = (svc: ServiceProcess) => call(svc, 'PUT', '/v1/speech/projects/beta/vocabulary', vera.headers, { terms: ['Siobhan'] });
    const refused = await vocabulary(other);
    expect(refused.status).toBe(403);
    expect((await refused.json()).detail).toMatch(/needs the editor role.*you have the viewer role/);
    const given = await call(node, 'PUT', '/v1/admin/users/vera/roles', ann.headers, { team: 'viewer', projects: [{ project: 'beta', role: 'editor' }] });
    expect(given.status).toBe(200);
    expect(await given.json()).toMatchObject({ name: 'vera', team_role: 'viewer', projects: [{ project_key: 'beta', role: 'editor' }] });
    expect((await vocabulary(other)).status).toBe(200);
    const me = await (await call(other, 'GET', '/v1/me', vera.headers)).json();
    expect(me).toMatchObject({ user: 'vera', key: 'vera-key', team_role: 'viewer', projects: [{ project_key: 'beta', role: 'editor' }] });
    // Taken away again through the other node: refused at once on the first.
    expect((await call(other, 'PUT', '/v1/admin/users/vera/roles', ann.headers, { team: 'viewer' })).status).toBe(200);
    expect((await vocabulary(node)).status).toBe(403);
    // The admin page's list, for admins only.
    const list = await call(node, 'GET', '/v1/admin/users', ann.headers);
    expect((await list.json()).data.map((u: { name: string }) => u.name)).toEqual(expect.arrayContaining(['vera', 'eddie', 'ann', 'bea', 'pia']));
    expect((await call(node, 'GET', '/v1/admin/users', vera.headers)).status).toBe(403);
    // Bad input is a clear 422 or 404, nothing changed.
    expect((await call(node, 'PUT', '/v1/admin/users/vera/roles', ann.headers, { team: 'owner' })).status).toBe(422);
    expect((await call(node, 'PUT', '/v1/admin/users/nobody/roles', ann.headers, { team: 'viewer' })).status).toBe(404);
    expect((await call(node, 'PUT', '/v1/admin/users/vera/roles', ann.headers, { team: 'editor', projects: [{ project: 'nope', role: 'viewer' }] })).status).toBe(404);
    expect((await (await call(node, 'GET', '/v1/me', vera.headers)).json()).team_role).toBe('viewer');
  }, 120_000);
});
