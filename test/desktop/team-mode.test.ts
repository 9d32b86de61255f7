import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SESSION_COOKIE } from '../../src/service/http/authenticate';
import { SqlKeyStore } from '../../src/service/storage/key-store';
import { SqlProjectStore } from '../../src/service/storage/project-store';
import { openPostgresPool, PostgresSql } from '../../src/service/storage/sql/postgres-sql';
import { loadSettings } from '../../src/main/desktop-settings';
import { createDialogActions } from '../../src/main/team-server-dialog';
import { checkTeamServer, SignInError, signInStudio } from '../../src/main/team-server-client';
import { IpcChannel } from '../../src/shared/ipc';
import { electronDouble, removeSignalHandlersAddedSince } from '../helpers/electron-main';
import { freePort } from '../helpers/free-port';
import { startPostgres, type ThrowawayPostgres } from '../helpers/postgres';
import { startServiceProcess, type ServiceProcess } from '../helpers/service';
import { teamEnv } from '../helpers/team';
import { tempDir } from '../helpers/temp';

/**
 * The desktop app pointed at a real team server: an API node in team mode (PostgreSQL), reached over HTTP by
 * the desktop's own client code, dialog and, with Electron doubled, its whole main-process wiring.
 */
let pg: ThrowawayPostgres;
let api: ServiceProcess;
let env: Record<string, string>;
let limitedKey: string;
const headers = (key: string) => ({ Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' });
/**
 * Keys made in the team's database through its store (`npm run keys` edits the data folder's SQLite database
 * today, not TAKELINE_DATABASE_URL's: see docs/team-server.md, "Keys and users").
 */
async function teamKey(name: string, projectKeys: string[]): Promise<{ key: string; id: string }> {
  const pool = openPostgresPool(env.TAKELINE_DATABASE_URL!, 1);
  try {
    const sql = new PostgresSql(pool);
    const projects = new SqlProjectStore(sql);
    const projectIds = await Promise.all(projectKeys.map(async (key) => (await projects.find(key))!.id));
    const { key, record } = await new SqlKeyStore(sql).create(name, { user: 'ada', projectIds });
    return { key, id: record.id };
  } finally {
    await pool.end();
  }
}
async function revokeTeamKey(id: string): Promise<void> {
  const pool = openPostgresPool(env.TAKELINE_DATABASE_URL!, 1);
  try {
    expect(await new SqlKeyStore(new PostgresSql(pool)).revoke(id)).not.toBeNull();
  } finally {
    await pool.end();
  }
}
/** What a studio session cookie (as a browser would send it) sees. */
const projectsSeenBy = async (cookie: string) => {
  const res = await fetch(`${api.url}/v1/speech/projects`, { headers: { Cookie: `${SESSION_COOKIE}=${cookie}` } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: { key: string }[] }).data.map((p) => p.key).sort();
};

beforeAll(async () => {
  pg = await startPostgres();
  env = await teamEnv(pg, 'desk_team');
  api = await startServiceProcess({ dataDir: env.TAKELINE_DATA_DIR, env });
  for (const key of ['alpha', 'beta']) {
    const res = await fetch(`${api.url}/v1/speech/projects`, { method: 'POST', headers: headers(api.key), body: JSON.stringify({ key, name: key }) });
    expect(res.status).toBe(201);
  }
  limitedKey = (await teamKey('ada-desktop', ['alpha'])).key;
}, 120_000);
afterAll(async () => {
  await api?.stop();
  await pg?.stop();
});

describe('checking a team server', () => {
  it('accepts a key the server knows and says how many projects it sees', async () => {
    expect(await checkTeamServer({ url: `${api.url}/`, key: api.key }, fetch)).toEqual({ ok: true, origin: api.url, key: api.key, projects: 2 });
    expect(await checkTeamServer({ url: api.url, key: ` ${limitedKey} ` }, fetch)).toEqual({ ok: true, origin: api.url, key: limitedKey, projects: 1 });
  });

  it('names the field at fault: an unknown key, a server that is not there, a server that is not Takeline', async () => {
    const unknown = 'tl_' + 'N0pe'.repeat(10);
    expect(await checkTeamServer({ url: api.url, key: unknown }, fetch)).toEqual({
      ok: false,
      field: 'key',
      message: expect.stringMatching(/does not accept this key/),
    });
    const closed = await freePort();
    expect(await checkTeamServer({ url: `http://127.0.0.1:${closed}`, key: unknown }, fetch)).toEqual({
      ok: false,
      field: 'url',
      message: expect.stringMatching(new RegExp(`^http://127\\.0\\.0\\.1:${closed} could not be reached: ECONNREFUSED`)),
    });
    // Another web server on the address (a wiki, a NAS's admin page): it answers, but not /healthz as Takeline.
    const other = http.createServer((_req, res) => res.writeHead(404, { 'Content-Type': 'text/html' }).end('<h1>Not Found</h1>'));
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    try {
      const port = (other.address() as { port: number }).port;
      expect(await checkTeamServer({ url: `http://127.0.0.1:${port}`, key: unknown }, fetch)).toEqual({
        ok: false,
        field: 'url',
        message: `http://127.0.0.1:${port} answered, but not as a Takeline server does (GET /healthz gave 404).`,
      });
    } finally {
      await new Promise((resolve) => other.close(resolve));
    }
    expect(await checkTeamServer({ url: `${api.url}/studio`, key: api.key }, fetch)).toMatchObject({ ok: false, field: 'url' });
    expect(await checkTeamServer({ url: api.url, key: 'tl_short' }, fetch)).toMatchObject({ ok: false, field: 'key' });
  });
});

describe('signing the studio in', () => {
  it('with the user’s key: the studio session sees what that key sees, not the whole server', async () => {
    const cookie = await signInStudio(api.url, limitedKey, fetch);
    expect(cookie).toMatchObject({ name: SESSION_COOKIE, maxAgeSeconds: 30 * 24 * 3600 });
    expect(await projectsSeenBy(cookie.value)).toEqual(['alpha']);
    const beta = await fetch(`${api.url}/v1/speech/projects/beta`, { headers: { Cookie: `${SESSION_COOKIE}=${cookie.value}` } });
    expect(beta.status).toBe(404);
    const owner = await signInStudio(api.url, api.key, fetch);
    expect(await projectsSeenBy(owner.value)).toEqual(['alpha', 'beta']);
  });

  it('fails with a clear message for a revoked key, and its old session stops working', async () => {
    const { key, id } = await teamKey('temp-desktop', ['beta']);
    const cookie = await signInStudio(api.url, key, fetch);
    expect(await projectsSeenBy(cookie.value)).toEqual(['beta']);
    await revokeTeamKey(id);
    await expect(signInStudio(api.url, key, fetch)).rejects.toThrow(SignInError);
    await expect(signInStudio(api.url, key, fetch)).rejects.toThrow(/does not accept the saved key/);
    const res = await fetch(`${api.url}/v1/speech/projects`, { headers: { Cookie: `${SESSION_COOKIE}=${cookie.value}` } });
    expect(res.status).toBe(401);
  });
});

describe('nothing sticky between API nodes (docs/team-server.md, "Nothing sticky between API nodes")', () => {
  it('a studio signed in through one API node is signed in on another, and a sign-in link from one works on the other', async () => {
    const second = await startServiceProcess({ dataDir: env.TAKELINE_DATA_DIR, env });
    try {
      expect(second.url).not.toBe(api.url);
      const cookie = await signInStudio(api.url, limitedKey, fetch);
      const seen = await fetch(`${second.url}/v1/speech/projects`, { headers: { Cookie: `${SESSION_COOKIE}=${cookie.value}` } });
      expect(seen.status).toBe(200);
      expect(((await seen.json()) as { data: { key: string }[] }).data.map((p) => p.key)).toEqual(['alpha']);
      // The first node's one-time link, taken by the second: a session cookie, then a redirect to the studio.
      const token = new URL(api.signInUrl).searchParams.get('token')!;
      const taken = await fetch(`${second.url}/auth/signin?token=${token}`, { redirect: 'manual' });
      expect(taken.status).toBe(303);
      expect(taken.headers.get('set-cookie')).toMatch(new RegExp(`^${SESSION_COOKIE}=`));
      // Used once, on whichever node: the first one refuses it now.
      expect((await fetch(`${api.url}/auth/signin?token=${token}`, { redirect: 'manual' })).status).toBe(403);
    } finally {
      await second.stop();
    }
  });
});

describe('the Team Server… dialog', () => {
  it('checks without saving, saves only what the server accepted, and reuses the saved key', async () => {
    const dir = tempDir('takeline-desk-dialog-');
    const settingsFile = path.join(dir, 'desktop-settings.json');
    const restart = vi.fn();
    const safe = {
      isAsyncEncryptionAvailable: async () => false,
      getSelectedStorageBackend: () => 'basic_text',
      encryptStringAsync: async () => Buffer.alloc(0),
      decryptStringAsync: async () => ({ result: '' }),
    };
    const actions = createDialogActions({ settingsFile, safe, platform: 'linux', fetch, runningMode: 'embedded', restart, log: () => {} });
    expect(await actions.current()).toEqual({ mode: 'embedded', url: '', hasSavedKey: false, keyProtection: 'file-permissions' });

    expect(await actions.check({ url: api.url, key: limitedKey })).toEqual({ ok: true, message: 'The server accepted the key; it sees 1 project.' });
    expect(fs.existsSync(settingsFile)).toBe(false);

    // A refused key writes nothing and does not restart.
    expect(await actions.save({ url: api.url, key: 'tl_' + 'N0pe'.repeat(10) })).toMatchObject({ ok: false, field: 'key' });
    expect(await actions.save({ url: api.url, key: '' })).toEqual({ ok: false, field: 'key', message: 'Enter your API key for this server.' });
    expect(fs.existsSync(settingsFile)).toBe(false);
    expect(restart).not.toHaveBeenCalled();

    expect(await actions.save({ url: `${api.url}/`, key: limitedKey })).toMatchObject({ ok: true });
    expect(restart).toHaveBeenCalledOnce();
    expect(loadSettings(settingsFile)).toEqual({
      settings: { version: 1, server: 'team', team: { url: api.url, key: { storage: 'plain', value: limitedKey } } },
      problem: null,
    });
    expect(fs.statSync(settingsFile).mode & 0o777).toBe(0o600);
    expect(await actions.current()).toMatchObject({ url: api.url, hasSavedKey: true });
    // The same address with the key left empty: the saved key, checked again.
    expect(await actions.check({ url: api.url, key: '' })).toMatchObject({ ok: true });
    expect(await actions.check({ url: 'http://127.0.0.1:1', key: '' })).toMatchObject({ ok: false, field: 'key' });
  });
});

describe('the desktop app on a team server (Electron doubled, the team server real)', () => {
  it('starts no embedded service, signs the studio in with the user’s key and loads the team server’s studio', async () => {
    const userData = tempDir('takeline-desk-userdata-');
    fs.writeFileSync(
      path.join(userData, 'desktop-settings.json'),
      JSON.stringify({ version: 1, server: 'team', team: { url: api.url, key: { storage: 'plain', value: limitedKey } } }),
    );
    const double = electronDouble({ userData });
    const startService = vi.fn(async () => {
      throw new Error('the embedded service must not start');
    });
    vi.resetModules();
    vi.doMock('electron', () => double.electron);
    vi.doMock('../../src/service/server', () => ({ startService }));
    const signals = { SIGINT: process.listenerCount('SIGINT'), SIGTERM: process.listenerCount('SIGTERM') };
    try {
      await import('../../src/main/index');
      double.markReady();
      await vi.waitFor(() => expect(double.windows).toHaveLength(1), { timeout: 15_000 });
      const [window] = double.windows;
      await vi.waitFor(() => expect(window!.loadURL).toHaveBeenCalledWith(`${api.url}/`), { timeout: 15_000 });
      expect(startService).not.toHaveBeenCalled();
      // No data folder taken: nothing of the service's was made in userData.
      expect(fs.readdirSync(userData)).toEqual(['desktop-settings.json']);

      // The cookie the window's session got is a live studio session with the limited key's view.
      const { cookies } = double.electron.session.defaultSession;
      expect(cookies.set).toHaveBeenCalledOnce();
      const [details] = cookies.set.mock.calls[0]!;
      expect(details).toMatchObject({ url: api.url, name: SESSION_COOKIE, httpOnly: true, sameSite: 'strict', secure: false });
      expect(await projectsSeenBy(details.value as string)).toEqual(['alpha']);

      // The studio's bridge trusts the team server's origin and hands it the user's key.
      const handler = double.electron.ipcMain.handle.mock.calls.find(([channel]) => channel === IpcChannel.apiKey)![1] as (
        event: unknown,
      ) => Promise<string>;
      await expect(handler({ senderFrame: { url: `${api.url}/sessions/x`, parent: null } })).resolves.toBe(limitedKey);
      await expect(handler({ senderFrame: { url: 'http://127.0.0.1:1/', parent: null } })).rejects.toThrow(/is not the studio/);

      // The menu says where the studio is and offers no local data folder.
      const [template] = double.electron.Menu.buildFromTemplate.mock.calls.at(-1)! as unknown as [{ label?: string; submenu?: { label?: string }[] }[]];
      const file = template.find((menu) => menu.label === 'File')!;
      expect(file.submenu!.some((item) => item.label === 'Show Data Folder')).toBe(false);
      expect(JSON.stringify(template)).toContain(`Connected to ${api.url}`);

      double.electron.app.quit();
      await vi.waitFor(() => expect(double.electron.app.quit).toHaveBeenCalledTimes(2));
    } finally {
      removeSignalHandlersAddedSince(signals);
      vi.doUnmock('electron');
      vi.doUnmock('../../src/service/server');
    }
  });
});
