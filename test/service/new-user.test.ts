import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { multipartBody, rawRequest, startServiceProcess, type ServiceProcess } from '../helpers/service';
import { audioDir, repoRoot } from '../helpers/paths';

const FLAC = path.join(audioDir, 'asr', 'amateur_LJ001-0001.flac');

/** What a new user ran into: each case once broken, now answered properly. */
describe('found when tried as a new user would', () => {
  let svc: ServiceProcess;
  let auth: Record<string, string>;
  let sessionId: string;
  beforeAll(async () => {
    svc = await startServiceProcess();
    auth = { Authorization: `Bearer ${svc.key}` };
    const { body, contentType } = multipartBody([{ name: 'project_key', value: 'nu' }, { name: 'file', file: fs.readFileSync(FLAC), filename: 'take one.flac' }]);
    sessionId = (await rawRequest(`${svc.url}/v1/speech/transcriptions`, { method: 'POST', headers: { ...auth, 'Content-Type': contentType }, body })).json().id;
  });
  afterAll(async () => {
    await svc?.stop();
  });

  const signedUrl = async () => (await (await fetch(`${svc.url}/v1/speech/transcriptions/${sessionId}/audio`, { headers: auth })).json()).url as string;

  it('answers a Range beyond the end of the signed audio with 416 and Content-Range: bytes */size, as JSON', async () => {
    const size = fs.statSync(FLAC).size;
    const res = await rawRequest(await signedUrl(), { headers: { Range: 'bytes=999999-' } });
    expect(res.status).toBe(416);
    expect(res.headers['content-range']).toBe(`bytes */${size}`);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json()).toEqual({ detail: expect.stringMatching(/range/i) });
    // A satisfiable range still works afterwards, with the audio type.
    const ok = await rawRequest(await signedUrl(), { headers: { Range: `bytes=${size - 10}-` } });
    expect(ok.status).toBe(206);
    expect(ok.headers['content-type']).toMatch(/^audio\/flac/);
    expect(ok.body.length).toBe(10);
  });

  it('answers 404 as JSON (not with the audio type) when the stored file is gone', async () => {
    const { body, contentType } = multipartBody([{ name: 'project_key', value: 'nu' }, { name: 'file', file: fs.readFileSync(FLAC), filename: 'b.flac' }]);
    const id = (await rawRequest(`${svc.url}/v1/speech/transcriptions`, { method: 'POST', headers: { ...auth, 'Content-Type': contentType }, body })).json().id;
    const url = (await (await fetch(`${svc.url}/v1/speech/transcriptions/${id}/audio`, { headers: auth })).json()).url as string;
    const folder = path.join(svc.dataDir, 'recordings', id);
    for (const name of fs.readdirSync(folder)) if (name.startsWith('original')) fs.rmSync(path.join(folder, name));
    const res = await rawRequest(url);
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json()).toEqual({ detail: 'The recording file is missing.' });
  });

  it('serves EDL and FCPXML with their own types and a Content-Disposition file name', async () => {
    const deadline = Date.now() + 90_000;
    while ((await (await fetch(`${svc.url}/v1/speech/transcriptions/${sessionId}`, { headers: auth })).json()).status !== 'complete') {
      if (Date.now() > deadline) throw new Error('transcription did not complete');
      await new Promise((r) => setTimeout(r, 500));
    }
    const expected: Record<string, RegExp> = { edl: /^text\/plain/, fcpxml: /^application\/xml/, srt: /^application\/x-subrip/, vtt: /^text\/vtt/, csv: /^text\/csv/ };
    for (const [format, type] of Object.entries(expected)) {
      const res = await fetch(`${svc.url}/v1/speech/transcriptions/${sessionId}/export?format=${format}`, { headers: auth });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(type);
      expect(res.headers.get('content-disposition')).toBe(`attachment; filename="take one.${format}"`);
    }
    const missing = await fetch(`${svc.url}/v1/speech/transcriptions/${sessionId}/export`, { headers: auth });
    expect(missing.status).toBe(422);
    expect((await missing.json()).detail[0]).toMatchObject({ loc: ['query', 'format'], type: 'missing' });
  });

  describe('signing in again after the one-time link was used', () => {
    const keysCli = (...args: string[]) =>
      spawnSync(process.execPath, ['--import', 'tsx', 'src/service/cli/keys.ts', ...args], {
        cwd: repoRoot,
        env: { ...process.env, TAKELINE_DATA_DIR: svc.dataDir },
        encoding: 'utf8',
      });
    const cookieOf = (res: { headers: { 'set-cookie'?: string[] } }) => res.headers['set-cookie']?.[0]?.split(';')[0] ?? null;

    it('refuses a used link, and `npm run keys -- signin` prints a fresh one for the running service', async () => {
      const first = await rawRequest(svc.signInUrl);
      expect(first.status).toBe(303);
      const again = await rawRequest(svc.signInUrl);
      expect(again.status).toBe(403);
      expect(again.json().detail).toMatch(/npm run keys -- signin/);

      const cli = keysCli('signin');
      expect(cli.status).toBe(0);
      const link = cli.stdout.trim();
      expect(link).toMatch(new RegExp(`^${svc.url.replace(/\./g, '\\.')}/auth/signin\\?token=[\\w-]+$`));
      const fresh = await rawRequest(link);
      expect(fresh.status).toBe(303);
      const cookie = cookieOf(fresh);
      expect(cookie).toMatch(/^takeline_session=/);
      expect((await rawRequest(`${svc.url}/v1/speech/projects`, { headers: { Cookie: cookie! } })).status).toBe(200);
      expect((await rawRequest(link)).status).toBe(403);
    });

    it('signs the studio in with an API key (cookie only; a wrong key is 401)', async () => {
      const json = { 'Content-Type': 'application/json' };
      const wrong = await rawRequest(`${svc.url}/auth/signin`, { method: 'POST', headers: json, body: JSON.stringify({ key: 'tl_notakeynotakeynotakeynotakeynotakey12' }) });
      expect(wrong.status).toBe(401);
      expect(wrong.headers['set-cookie']).toBeUndefined();
      const empty = await rawRequest(`${svc.url}/auth/signin`, { method: 'POST', headers: json, body: '{}' });
      expect(empty.status).toBe(401);
      const ok = await rawRequest(`${svc.url}/auth/signin`, { method: 'POST', headers: json, body: JSON.stringify({ key: svc.key }) });
      expect(ok.status).toBe(204);
      expect(ok.headers['set-cookie']![0]).toMatch(/HttpOnly; SameSite=Strict/);
      expect(ok.body.toString()).not.toContain(svc.key);
      expect((await rawRequest(`${svc.url}/v1/speech/projects`, { headers: { Cookie: cookieOf(ok)! } })).status).toBe(200);
      // A cross-site page cannot post a key to it (the Origin guard).
      const foreign = await rawRequest(`${svc.url}/auth/signin`, { method: 'POST', headers: { ...json, Origin: 'https://evil.example' }, body: JSON.stringify({ key: svc.key }) });
      expect(foreign.status).toBe(403);
    });
  });
});
