import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { multipartBody, rawRequest, startServiceProcess, type ServiceProcess } from '../helpers/service';
import { audioDir, repoRoot } from '../helpers/paths';
import { startPostgres, type ThrowawayPostgres } from '../helpers/postgres';
import { teamEnv } from '../helpers/team';

const FLAC = fs.readFileSync(path.join(audioDir, 'asr', 'amateur_LJ001-0001.flac'));

// Both modes: keys and their projects live in the database the API nodes share (PostgreSQL on a team server, where
// the uploads stay queued: no worker is needed to be refused).
describe.each(['embedded', 'team'] as const)('keys limited to projects (%s)', (mode) => {
  let svc: ServiceProcess;
  let pg: ThrowawayPostgres | null = null;
  let team: Record<string, string> = {};
  let owner: Record<string, string>;
  let limited: Record<string, string>;
  let limitedKeyId: string;
  let sessionA: string;
  let sessionB: string;
  let projectB: { id: string; key: string };

  const keysCli = (...args: string[]) =>
    spawnSync(process.execPath, ['--import', 'tsx', 'src/service/cli/keys.ts', ...args], {
      cwd: repoRoot,
      env: { ...process.env, ...team, TAKELINE_DATA_DIR: svc.dataDir },
      encoding: 'utf8',
    });
  const upload = async (headers: Record<string, string>, projectKey: string) => {
    const { body, contentType } = multipartBody([
      { name: 'project_key', value: projectKey },
      { name: 'file', file: FLAC, filename: `${projectKey}.flac` },
    ]);
    return rawRequest(`${svc.url}/v1/speech/transcriptions`, { method: 'POST', headers: { ...headers, 'Content-Type': contentType }, body });
  };
  const call = (method: string, route: string, headers: Record<string, string>, json?: unknown) =>
    fetch(`${svc.url}${route}`, {
      method,
      headers: json === undefined ? headers : { ...headers, 'Content-Type': 'application/json' },
      body: json === undefined ? undefined : JSON.stringify(json),
    });

  beforeAll(async () => {
    if (mode === 'team') {
      pg = await startPostgres();
      team = await teamEnv(pg, 'keys');
    }
    svc = await startServiceProcess({ env: team, dataDir: team.TAKELINE_DATA_DIR });
    owner = { Authorization: `Bearer ${svc.key}` };
    for (const key of ['alpha', 'beta']) expect((await call('POST', '/v1/speech/projects', owner, { key, name: key })).status).toBe(201);
    sessionA = (await upload(owner, 'alpha')).json().id;
    sessionB = (await upload(owner, 'beta')).json().id;
    projectB = await (await call('GET', '/v1/speech/projects/beta', owner)).json();
    const created = keysCli('create', 'dubbing-tool', '--user', 'ada', '--projects', 'alpha');
    expect(created.status, created.stderr).toBe(0);
    limited = { 'X-API-Key': created.stdout.trim() };
    limitedKeyId = /created key (\S+)/.exec(created.stderr)![1]!;
  });
  afterAll(async () => {
    await svc?.stop();
    await pg?.stop();
  });

  it("answers 404 for everything of another project, exactly as for what does not exist", async () => {
    const missing = '00000000-0000-4000-8000-000000000000';
    const routes = [
      ['GET', ''],
      ['GET', '/audio'],
      ['GET', '/peaks'],
      ['GET', '/export?format=srt'],
      ['GET', '/intelligence'],
      ['POST', '/intelligence'],
      ['GET', '/intelligence/runs'],
      ['GET', '/dubs'],
      ['GET', '/transcript/revisions'],
      ['POST', '/transcript/merge'],
      ['PATCH', '/media'],
      ['POST', '/retry'],
      ['DELETE', ''],
    ] as const;
    for (const [method, tail] of routes) {
      const body = method === 'GET' || method === 'DELETE' ? undefined : {};
      const foreign = await call(method, `/v1/speech/transcriptions/${sessionB}${tail}`, limited, body);
      const absent = await call(method, `/v1/speech/transcriptions/${missing}${tail}`, owner, body);
      expect(foreign.status, `${method} …${tail}`).toBe(404);
      expect(await foreign.json(), `${method} …${tail}`).toEqual({ detail: 'Transcription session not found.' });
      // The owner's answer for a recording that does not exist is a 404 too (or a validation error first).
      expect([404, 422], `${method} …${tail}`).toContain(absent.status);
    }
    for (const ref of ['beta', projectB.id]) {
      expect((await call('GET', `/v1/speech/projects/${ref}`, limited)).status).toBe(404);
      expect((await call('GET', `/v1/speech/projects/${ref}/vocabulary`, limited)).status).toBe(404);
      expect((await call('PUT', `/v1/speech/projects/${ref}/vocabulary`, limited, { terms: ['Siobhan'] })).status).toBe(404);
    }
    expect((await call('GET', '/v1/speech/transcriptions?project=beta', limited)).status).toBe(404);
    // Nothing of B was changed or removed by the refused requests.
    expect((await call('GET', `/v1/speech/transcriptions/${sessionB}`, owner)).status).toBe(200);
    expect((await (await call('GET', '/v1/speech/projects/beta/vocabulary', owner)).json()).terms).toEqual([]);
  });

  it('lists only its own projects and recordings, and reads them', async () => {
    const projects = await (await call('GET', '/v1/speech/projects', limited)).json();
    expect(projects.data.map((p: { key: string }) => p.key)).toEqual(['alpha']);
    const list = await (await call('GET', '/v1/speech/transcriptions', limited)).json();
    expect(list.data.map((s: { id: string }) => s.id)).toEqual([sessionA]);
    expect(list.total).toBe(1);
    expect((await call('GET', `/v1/speech/transcriptions/${sessionA}`, limited)).status).toBe(200);
    expect((await call('GET', `/v1/speech/transcriptions/${sessionA}/audio`, limited)).status).toBe(200);
    expect((await call('GET', '/v1/speech/projects/alpha', limited)).status).toBe(200);
    const owners = await (await call('GET', '/v1/speech/transcriptions', owner)).json();
    expect(owners.total).toBe(2);
  });

  it('uploads only into its own projects and creates none', async () => {
    expect((await upload(limited, 'alpha')).status).toBe(201);
    const intoB = await upload(limited, 'beta');
    expect(intoB.status).toBe(404);
    const intoNew = await upload(limited, 'gamma');
    expect(intoNew.status).toBe(404);
    expect((await call('GET', '/v1/speech/projects/gamma', owner)).status).toBe(404);
    const create = await call('POST', '/v1/speech/projects', limited, { key: 'delta', name: 'Delta' });
    expect(create.status).toBe(403);
    expect((await call('GET', '/v1/speech/projects/delta', owner)).status).toBe(404);
    // The machine's models are shared: listed, not changed.
    expect((await call('GET', '/v1/speech/models/whisper', limited)).status).toBe(200);
    expect((await call('POST', '/v1/speech/models/whisper/tiny.en/download', limited)).status).toBe(403);
    expect((await call('DELETE', '/v1/speech/models/whisper/tiny.en', limited)).status).toBe(403);
    // OpenAI's route too, in its own envelope.
    const { body, contentType } = multipartBody([
      { name: 'model', value: 'whisper-1' },
      { name: 'project_key', value: 'beta' },
      { name: 'file', file: FLAC, filename: 'b.flac' },
    ]);
    const openai = await rawRequest(`${svc.url}/v1/audio/transcriptions`, { method: 'POST', headers: { ...limited, 'Content-Type': contentType }, body });
    expect(openai.status).toBe(404);
    expect(openai.json().error).toMatchObject({ type: 'not_found_error', param: 'project_key' });
    // B has still its one recording.
    const inB = await (await call('GET', '/v1/speech/transcriptions?project=beta', owner)).json();
    expect(inB.total).toBe(1);
  });

  it('prints a one-time studio sign-in link that the running service takes once', async () => {
    const printed = keysCli('signin');
    expect(printed.status, printed.stderr).toBe(0);
    // A team's link is a path for any API node; the desktop's names its running service.
    const link = printed.stdout.trim().replace(/^http:\/\/127\.0\.0\.1:\d+/, '');
    expect(link).toMatch(/^\/auth\/signin\?token=\S+$/);
    const used = await rawRequest(`${svc.url}${link}`);
    expect(used.status).toBe(303);
    expect(String(used.headers['set-cookie'])).toMatch(/^takeline_session=/);
    expect((await rawRequest(`${svc.url}${link}`)).status).not.toBe(303);
  });

  it('signs the studio in with what the key sees', async () => {
    const signin = await rawRequest(`${svc.url}/auth/signin`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Origin: svc.url },
      body: JSON.stringify({ key: limited['X-API-Key'] }),
    });
    expect(signin.status).toBe(204);
    const cookie = String(signin.headers['set-cookie']).split(';')[0]!;
    const projects = await (await call('GET', '/v1/speech/projects', { Cookie: cookie })).json();
    expect(projects.data.map((p: { key: string }) => p.key)).toEqual(['alpha']);
    expect((await call('GET', `/v1/speech/transcriptions/${sessionB}`, { Cookie: cookie })).status).toBe(404);
  });

  it('follows a change of its projects at once', async () => {
    const widened = keysCli('projects', limitedKeyId, 'alpha,beta');
    expect(widened.status, widened.stderr).toBe(0);
    expect(widened.stdout).toContain('projects alpha,beta');
    expect((await call('GET', `/v1/speech/transcriptions/${sessionB}`, limited)).status).toBe(200);
    expect(keysCli('projects', limitedKeyId, 'alpha').status).toBe(0);
    expect((await call('GET', `/v1/speech/transcriptions/${sessionB}`, limited)).status).toBe(404);
    const listed = keysCli('list');
    expect(listed.stdout).toMatch(new RegExp(`${limitedKeyId}.*dubbing-tool.*user ada.*projects alpha .*active`));
    expect(keysCli('users').stdout).toMatch(/ada\s+1 active key/);
  });

  it('refuses unknown options, commands and projects instead of ignoring them', () => {
    for (const args of [
      ['create', 'x', '--project', 'alpha'],
      ['create', 'x', '--projects'],
      ['create', 'x', '--projects', 'nope'],
      ['list', '--all'],
      ['revoke'],
      ['projects', limitedKeyId],
      ['frobnicate'],
    ]) {
      const run = keysCli(...args);
      expect(run.status, args.join(' ')).toBe(2);
      expect(run.stdout, args.join(' ')).toBe('');
      expect(run.stderr, args.join(' ')).toMatch(/usage: npm run keys/);
    }
    expect(keysCli('create', 'x', '--projects', 'nope').stderr).toMatch(/no project "nope"; projects: (alpha, beta|beta, alpha)\n/);
  });
});
