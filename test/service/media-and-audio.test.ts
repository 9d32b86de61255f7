import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { multipartBody, rawRequest, startServiceProcess, type ServiceProcess } from '../helpers/service';
import { audioDir } from '../helpers/paths';
import { inspectDatabase } from '../helpers/crash';
import { signAudio } from '../../src/service/auth/signed-url';

const FLAC = path.join(audioDir, 'asr', 'amateur_LJ001-0001.flac');

describe('timebase and the signed audio address', () => {
  let svc: ServiceProcess;
  let auth: Record<string, string>;
  let sessionId: string;
  beforeAll(async () => {
    svc = await startServiceProcess();
    auth = { Authorization: `Bearer ${svc.key}` };
    sessionId = await newSession();
  });
  afterAll(async () => {
    await svc?.stop();
  });

  async function newSession(): Promise<string> {
    const { body, contentType } = multipartBody([{ name: 'project_key', value: 'tb' }, { name: 'file', file: fs.readFileSync(FLAC), filename: 'a.flac' }]);
    const res = await rawRequest(`${svc.url}/v1/speech/transcriptions`, { method: 'POST', headers: { ...auth, 'Content-Type': contentType }, body });
    return res.json().id;
  }

  const patch = (id: string, body: unknown) =>
    rawRequest(`${svc.url}/v1/speech/transcriptions/${id}/media`, {
      method: 'PATCH',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('starts as null, needs frame_rate first, then defaults the rest', async () => {
    const id = await newSession();
    expect((await (await fetch(`${svc.url}/v1/speech/transcriptions/${id}`, { headers: auth })).json()).media).toBeNull();
    const missing = await patch(id, { tape: 'A001' });
    expect(missing.status).toBe(422);
    expect(missing.json().detail[0]).toMatchObject({ loc: ['body', 'frame_rate'], type: 'missing' });
    const set = await patch(id, { frame_rate: '25' });
    expect(set.status).toBe(200);
    expect(set.json()).toEqual({ media: { frame_rate: '25', drop_frame: false, start_timecode: null, timecode_source: 'user', tape: '' } });
  });

  it('keeps omitted fields and allows null start_timecode', async () => {
    const id = await newSession();
    await patch(id, { frame_rate: '29.97', drop_frame: true, start_timecode: '01:00:00;00', tape: 'REEL_A' });
    const tape = await patch(id, { tape: 'REEL_B' });
    expect(tape.json().media).toEqual({ frame_rate: '29.97', drop_frame: true, start_timecode: '01:00:00;00', timecode_source: 'user', tape: 'REEL_B' });
    const cleared = await patch(id, { start_timecode: null });
    expect(cleared.json().media.start_timecode).toBeNull();
    const stored = await (await fetch(`${svc.url}/v1/speech/transcriptions/${id}`, { headers: auth })).json();
    expect(stored.media).toEqual(cleared.json().media);
  });

  it('accepts all eight frame rates as strings and drop frame only at 29.97 and 59.94', async () => {
    for (const rate of ['23.976', '24', '25', '29.97', '30', '50', '59.94', '60']) {
      const res = await patch(sessionId, { frame_rate: rate, drop_frame: false, start_timecode: '00:00:10:00' });
      expect(res.status, rate).toBe(200);
      const drop = await patch(sessionId, { frame_rate: rate, drop_frame: true, start_timecode: null });
      expect(drop.status, rate).toBe(rate === '29.97' || rate === '59.94' ? 200 : 422);
    }
    const numeric = await patch(sessionId, { frame_rate: 25 });
    expect(numeric.status).toBe(422);
    expect(numeric.json().detail[0].loc).toEqual(['body', 'frame_rate']);
    const other = await patch(sessionId, { frame_rate: '48' });
    expect(other.json().detail[0]).toMatchObject({ loc: ['body', 'frame_rate'], type: 'literal_error', input: '48' });
    const drop25 = await patch(sessionId, { frame_rate: '25', drop_frame: true });
    expect(drop25.json().detail[0]).toMatchObject({ loc: ['body', 'drop_frame'], ctx: { frame_rate: '25' } });
  });

  it('refuses timecodes that are malformed, too long, out of range or do not exist in drop frame', async () => {
    const bad: Array<[object, string]> = [
      [{ frame_rate: '29.97', drop_frame: true, start_timecode: '00:01:00;00' }, 'does not exist'],
      [{ frame_rate: '29.97', drop_frame: true, start_timecode: '00:01:00;01' }, 'exist'],
      [{ frame_rate: '59.94', drop_frame: true, start_timecode: '00:02:00;03' }, 'exist'],
      [{ frame_rate: '29.97', drop_frame: true, start_timecode: '01:00:00:00' }, ';'],
      [{ frame_rate: '25', drop_frame: false, start_timecode: '01:00:00;00' }, ':'],
      [{ frame_rate: '25', drop_frame: false, start_timecode: '00:00:00:25' }, 'frame'],
      [{ frame_rate: '24', drop_frame: false, start_timecode: '24:00:00:00' }, 'hour'],
      [{ frame_rate: '24', drop_frame: false, start_timecode: '00:60:00:00' }, 'minute'],
      [{ frame_rate: '24', drop_frame: false, start_timecode: '1:00:00:00' }, 'HH:MM:SS:FF'],
    ];
    for (const [body, hint] of bad) {
      const res = await patch(sessionId, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      const entry = res.json().detail[0];
      expect(entry.loc).toEqual(['body', 'start_timecode']);
      expect(entry.msg.toLowerCase()).toContain(hint.toLowerCase());
    }
    const ok = await patch(sessionId, { frame_rate: '29.97', drop_frame: true, start_timecode: '00:10:00;00' });
    expect(ok.status).toBe(200);
    const tooLong = await patch(sessionId, { start_timecode: '00:00:00:00:0' });
    expect(tooLong.json().detail[0]).toMatchObject({ loc: ['body', 'start_timecode'], type: 'string_too_long', ctx: { max_length: 12 } });
    const tape = await patch(sessionId, { tape: 't'.repeat(33) });
    expect(tape.json().detail[0]).toMatchObject({ loc: ['body', 'tape'], type: 'string_too_long', ctx: { max_length: 32 } });
    const types = await patch(sessionId, { drop_frame: 'yes', tape: 5 });
    expect(types.json().detail.map((d: { loc: string[] }) => d.loc[1]).sort()).toEqual(['drop_frame', 'tape']);
    const unknown = await patch('00000000-0000-4000-8000-000000000000', { frame_rate: '25' });
    expect(unknown.status).toBe(404);
    // Nothing invalid was stored.
    const stored = await (await fetch(`${svc.url}/v1/speech/transcriptions/${sessionId}`, { headers: auth })).json();
    expect(stored.media).toMatchObject({ frame_rate: '29.97', drop_frame: true, start_timecode: '00:10:00;00' });
  });

  it('gives a signed one-hour address that plays without a key, with HEAD and Range', async () => {
    const res = await fetch(`${svc.url}/v1/speech/transcriptions/${sessionId}/audio`, { headers: auth });
    expect(res.status).toBe(200);
    const { url, expires_in } = await res.json();
    expect(expires_in).toBe(3600);
    expect(url.startsWith(`${svc.url}/`)).toBe(true);
    const original = fs.readFileSync(FLAC);
    const full = await fetch(url);
    expect(full.status).toBe(200);
    expect(full.headers.get('content-type')).toBe('audio/flac');
    expect(Number(full.headers.get('content-length'))).toBe(original.length);
    expect(Buffer.from(await full.arrayBuffer()).equals(original)).toBe(true);
    const head = await fetch(url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(Number(head.headers.get('content-length'))).toBe(original.length);
    const range = await fetch(url, { headers: { Range: 'bytes=100-199' } });
    expect(range.status).toBe(206);
    expect(range.headers.get('content-range')).toBe(`bytes 100-199/${original.length}`);
    expect(Buffer.from(await range.arrayBuffer()).equals(original.subarray(100, 200))).toBe(true);
  });

  it('refuses tampered, expired, foreign and deleted-session addresses with 403', async () => {
    const { url } = await (await fetch(`${svc.url}/v1/speech/transcriptions/${sessionId}/audio`, { headers: auth })).json();
    const u = new URL(url);
    const sig = u.searchParams.get('signature')!;
    const tampered = new URL(url);
    tampered.searchParams.set('signature', sig.slice(0, -2) + (sig.endsWith('AA') ? 'BB' : 'AA'));
    const later = new URL(url);
    later.searchParams.set('expires', String(Number(u.searchParams.get('expires')) + 60));
    // The signing key lives in the database every API node reads (storage/secret-store.ts).
    const secret = inspectDatabase(svc.dataDir, (db) => Buffer.from((db.prepare("SELECT value FROM secrets WHERE name = 'audio-url'").get() as { value: string }).value, 'base64'));
    const past = Math.floor(Date.now() / 1000) - 10;
    const expired = new URL(url);
    expired.searchParams.set('expires', String(past));
    expired.searchParams.set('signature', signAudio(secret, sessionId, past));
    const other = await newSession();
    const foreign = new URL(url.replace(sessionId, other));
    for (const bad of [tampered, later, expired, foreign]) {
      const res = await fetch(bad);
      expect(res.status, bad.toString()).toBe(403);
      expect(await res.json()).toEqual({ detail: expect.any(String) });
    }
    const { url: otherUrl } = await (await fetch(`${svc.url}/v1/speech/transcriptions/${other}/audio`, { headers: auth })).json();
    expect((await fetch(otherUrl)).status).toBe(200);
    await fetch(`${svc.url}/v1/speech/transcriptions/${other}`, { method: 'DELETE', headers: auth });
    expect((await fetch(otherUrl)).status).toBe(403);
  });
});
