import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { multipartBody, rawRequest, startServiceProcess, type ServiceProcess } from '../helpers/service';
import { audioDir } from '../helpers/paths';

const FLAC = path.join(audioDir, 'asr', 'amateur_LJ001-0001.flac');

describe('the signed audio address and the guard', () => {
  let svc: ServiceProcess;
  let auth: Record<string, string>;
  const sessions: string[] = [];
  const signed = async (id: string) => new URL((await (await fetch(`${svc.url}/v1/speech/transcriptions/${id}/audio`, { headers: auth })).json()).url);
  beforeAll(async () => {
    svc = await startServiceProcess();
    auth = { Authorization: `Bearer ${svc.key}` };
    for (const name of ['a.flac', 'b.flac']) {
      const { body, contentType } = multipartBody([{ name: 'project_key', value: 'sec' }, { name: 'file', file: fs.readFileSync(FLAC), filename: name }]);
      sessions.push((await rawRequest(`${svc.url}/v1/speech/transcriptions`, { method: 'POST', headers: { ...auth, 'Content-Type': contentType }, body })).json().id);
    }
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it('refuses a foreign Host or Origin on the signed address too (DNS rebinding, cross-site pages)', async () => {
    const url = await signed(sessions[0]!);
    const target = url.pathname + url.search;
    expect((await rawRequest(`${svc.url}${target}`)).status).toBe(200);
    for (const headers of [{ Host: 'evil.example' } as Record<string, string>, { Host: `rebind.example:${svc.port}` }, { Origin: 'https://evil.example' }, { Origin: 'null' }]) {
      const res = await rawRequest(`${svc.url}${target}`, { headers });
      expect(res.status).toBe(403);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
    }
  });

  it('opens no CORS: no Access-Control headers, and a preflight is not granted', async () => {
    const url = await signed(sessions[0]!);
    const get = await rawRequest(url.toString(), { headers: { Origin: svc.url } });
    expect(get.headers['access-control-allow-origin']).toBeUndefined();
    const preflight = await rawRequest(`${svc.url}/v1/speech/projects`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'POST' },
    });
    expect(preflight.status).toBe(403);
    expect(Object.keys(preflight.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
  });

  it("refuses another session's signature, any tampered character, and a deleted session with 403", async () => {
    const [a, b] = sessions as [string, string];
    const ua = await signed(a);
    const other = new URL(ua);
    other.pathname = other.pathname.replace(a, b);
    expect((await rawRequest(other.toString())).status).toBe(403);
    const signature = ua.searchParams.get('signature')!;
    for (let i = 0; i < signature.length; i += 3) {
      const t = new URL(ua);
      t.searchParams.set('signature', signature.slice(0, i) + (signature[i] === 'A' ? 'B' : 'A') + signature.slice(i + 1));
      expect((await rawRequest(t.toString())).status).toBe(403);
    }
    const expired = new URL(ua);
    expired.searchParams.set('expires', String(Math.floor(Date.now() / 1000) - 1));
    expect((await rawRequest(expired.toString())).status).toBe(403);
    const ub = await signed(b);
    expect((await fetch(`${svc.url}/v1/speech/transcriptions/${b}`, { method: 'DELETE', headers: auth })).status).toBe(204);
    expect((await rawRequest(ub.toString())).status).toBe(403);
  });

  it('reaches nothing outside the data folder through the address (traversal in the id)', async () => {
    const ua = await signed(sessions[0]!);
    for (const id of ['..%2F..%2F..%2Fetc%2Fpasswd', '..', '%2e%2e', `${sessions[0]}%2F..%2F..%2Ftakeline.db`]) {
      const res = await rawRequest(`${svc.url}/v1/speech/transcriptions/${id}/audio/original${ua.search}`);
      expect([401, 403, 404]).toContain(res.status);
      expect(res.body.toString()).not.toMatch(/root:|SQLite format/);
    }
  });
});
