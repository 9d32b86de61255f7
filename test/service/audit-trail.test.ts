import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditPage, type AuditEntry } from '../../src/shared/schemas/audit';
import { TranscriptRevisionList } from '../../src/shared/schemas/transcript-edits';
import { multipartBody, rawRequest, startServiceProcess, type ServiceProcess } from '../helpers/service';
import { audioDir, repoRoot } from '../helpers/paths';
import { until } from '../helpers/poll';

const FLAC = fs.readFileSync(path.join(audioDir, 'asr', 'amateur_LJ001-0001.flac'));

// The audit trail through the service: what is recorded, by whom, from where; the admin route and the CLI.
describe('audit trail', { timeout: 600_000 }, () => {
  let svc: ServiceProcess;
  let owner: Record<string, string>;
  let ada: Record<string, string>;
  let limited: Record<string, string>;
  let limitedKeyId: string;
  let recording: string;

  const cli = (script: string, ...args: string[]) =>
    spawnSync(process.execPath, ['--import', 'tsx', `src/service/cli/${script}.ts`, ...args], {
      cwd: repoRoot,
      env: { ...process.env, TAKELINE_DATA_DIR: svc.dataDir },
      encoding: 'utf8',
    });
  const call = (method: string, route: string, headers: Record<string, string>, json?: unknown) =>
    fetch(`${svc.url}${route}`, {
      method,
      headers: json === undefined ? headers : { ...headers, 'Content-Type': 'application/json' },
      body: json === undefined ? undefined : JSON.stringify(json),
    });
  const trail = async (query = ''): Promise<AuditEntry[]> => {
    const res = await call('GET', `/v1/admin/audit?limit=100${query}`, owner);
    expect(res.status).toBe(200);
    return AuditPage.parse(await res.json()).data;
  };

  beforeAll(async () => {
    svc = await startServiceProcess();
    owner = { Authorization: `Bearer ${svc.key}` };
    expect((await call('POST', '/v1/speech/projects', owner, { key: 'alpha', name: 'Alpha' })).status).toBe(201);
    const made = cli('keys', 'create', 'ada-laptop', '--user', 'ada');
    expect(made.status, made.stderr).toBe(0);
    ada = { 'X-API-Key': made.stdout.trim() };
    const other = cli('keys', 'create', 'reviewer', '--projects', 'alpha');
    expect(other.status, other.stderr).toBe(0);
    limited = { 'X-API-Key': other.stdout.trim() };
    limitedKeyId = /created key (\S+)/.exec(other.stderr)![1]!;
    const { body, contentType } = multipartBody([
      { name: 'project_key', value: 'alpha' },
      { name: 'file', file: FLAC, filename: 'first.flac' },
    ]);
    const res = await rawRequest(`${svc.url}/v1/speech/transcriptions`, { method: 'POST', headers: { ...ada, 'Content-Type': contentType }, body });
    expect(res.status).toBe(201);
    recording = res.json().id;
    const done = await until(
      async () => (await call('GET', `/v1/speech/transcriptions/${recording}`, owner)).json() as Promise<{ status: string }>,
      (s) => s.status === 'complete' || s.status === 'failed',
    );
    expect(done.status).toBe('complete');
  }, 300_000);
  afterAll(async () => {
    await svc?.stop();
  });

  it('records who created the project, the keys and the recording, with the project and the address', async () => {
    const entries = await trail();
    const created = entries.find((e) => e.kind === 'recording.created')!;
    expect(created).toMatchObject({
      actor: { kind: 'user', name: 'ada', user: 'ada', key_name: 'ada-laptop' },
      address: '127.0.0.1',
      project: { key: 'alpha' },
      object: { type: 'recording', id: recording },
      detail: { file_name: 'first.flac' },
    });
    expect(entries.find((e) => e.kind === 'project.created')).toMatchObject({ actor: { kind: 'desktop', name: 'the desktop' }, project: { key: 'alpha' } });
    const keys = entries.filter((e) => e.kind === 'key.created').map((e) => [e.actor.kind, e.detail.name]);
    expect(keys).toEqual(expect.arrayContaining([['console', 'ada-laptop'], ['console', 'reviewer']]));
  });

  it("a transcript revision carries its author's name, and its audit entry", async () => {
    const res = await call('PATCH', `/v1/speech/transcriptions/${recording}/transcript/segments/0`, ada, { text: 'Printing, in the only sense with which we are at present concerned.' });
    expect(res.status, await res.clone().text()).toBe(200);
    expect((await res.json()).revision).toMatchObject({ revision: 1, author: 'ada' });
    const list = TranscriptRevisionList.parse(await (await call('GET', `/v1/speech/transcriptions/${recording}/transcript/revisions`, owner)).json());
    expect(list.data.map((r) => [r.revision, r.author])).toEqual([
      [0, null],
      [1, 'ada'],
    ]);
    const [revised] = await trail('&kind=transcript.revised');
    expect(revised).toMatchObject({ actor: { user: 'ada' }, project: { key: 'alpha' }, object: { type: 'recording', id: recording }, detail: { revision: 1, op: 'edit_text' } });
  });

  it('records whole-recording exports (not parts) and sign-ins, refused ones with their address', async () => {
    expect((await call('GET', `/v1/speech/transcriptions/${recording}/export?format=srt`, owner)).status).toBe(200);
    expect((await call('GET', `/v1/speech/transcriptions/${recording}/export?format=srt&start=0&end=1`, owner)).status).toBe(200);
    const exports = await trail('&kind=recording.exported');
    expect(exports.map((e) => [e.actor.name, e.detail.format])).toEqual([['the desktop', 'srt']]);

    expect((await call('POST', '/auth/signin', {}, { key: 'tl_not-a-key' })).status).toBe(401);
    expect((await call('POST', '/auth/signin', {}, { key: ada['X-API-Key'] })).status).toBe(204);
    const [ok, failed] = [...(await trail('&kind=signin')), ...(await trail('&kind=signin.failed'))];
    expect(ok).toMatchObject({ actor: { kind: 'user', user: 'ada' }, detail: { method: 'key' }, address: '127.0.0.1' });
    expect(failed).toMatchObject({ actor: { kind: 'anonymous' }, detail: { method: 'key' }, address: '127.0.0.1' });
    expect(JSON.stringify(failed)).not.toContain('tl_not-a-key');
  });

  it('is for admins only, filters by user, project and time, and reads write nothing', async () => {
    const refused = await call('GET', '/v1/admin/audit', limited);
    expect(refused.status).toBe(403);
    expect((await call('GET', '/v1/admin/audit?kind=nothing', owner)).status).toBe(422);
    const all = await trail();
    // Newest first.
    expect([...all].sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0)).map((e) => e.at)).toEqual(all.map((e) => e.at));
    expect((await trail('&user=ada')).every((e) => e.actor.user === 'ada')).toBe(true);
    expect((await trail('&project=alpha')).map((e) => e.kind)).toEqual(expect.arrayContaining(['project.created', 'recording.created', 'transcript.revised', 'recording.exported']));
    expect(await trail(`&since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).toEqual([]);
    // Reads (of recordings, revisions, the trail itself) add nothing.
    for (const route of [`/v1/speech/transcriptions/${recording}`, `/v1/speech/transcriptions/${recording}/transcript/revisions`, '/v1/speech/projects', '/v1/admin/audit']) {
      expect((await call('GET', route, owner)).status).toBe(200);
    }
    expect((await trail()).length).toBe(all.length);
    // Nothing edits or deletes an entry.
    for (const method of ['DELETE', 'PATCH', 'PUT', 'POST']) expect((await call(method, `/v1/admin/audit`, owner, method === 'DELETE' ? undefined : {})).status).toBe(404);
  });

  it('records a key revoked at the command line and a recording deleted; npm run audit prints the same trail', async () => {
    expect(cli('keys', 'revoke', limitedKeyId).status).toBe(0);
    expect((await call('DELETE', `/v1/speech/transcriptions/${recording}`, ada)).status).toBe(204);
    const [deleted] = await trail('&kind=recording.deleted');
    expect(deleted).toMatchObject({ actor: { user: 'ada' }, project: { key: 'alpha' }, object: { id: recording } });
    expect((await trail('&kind=key.revoked'))[0]).toMatchObject({ actor: { kind: 'console' }, object: { type: 'key', id: limitedKeyId } });

    const printed = cli('audit', '--user', 'ada', '--json');
    expect(printed.status, printed.stderr).toBe(0);
    const lines = printed.stdout.trim().split('\n').map((l) => JSON.parse(l) as AuditEntry);
    expect(lines).toEqual(await trail('&user=ada'));
    const table = cli('audit', '--kind', 'recording.deleted');
    expect(table.stdout).toContain('recording.deleted');
    expect(table.stdout).toContain(recording);
    expect(cli('audit', '--kind', 'nothing').status).toBe(2);
    expect(cli('audit', '--delete').status).toBe(2);
  });
});
