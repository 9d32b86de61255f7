import { describe, expect, it } from 'vitest';
import { SESSION_COOKIE } from '../service/http/authenticate';
import { checkTeamServer, sessionCookieOf } from './team-server-client';

// The whole client runs against a real team server in test/desktop/team-mode.test.ts; these are the header
// shapes a real server does not vary.
describe('sessionCookieOf', () => {
  const token = 'AbC-_123xyz';
  it('reads the studio session from one Set-Cookie value', () => {
    expect(sessionCookieOf([`${SESSION_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Strict; Max-Age=2592000`])).toEqual({
      name: SESSION_COOKIE,
      value: token,
      maxAgeSeconds: 2592000,
    });
  });

  it('finds it among cookies folded into one header (as Electron’s fetch gives them), with dates holding commas', () => {
    const folded = `other=1; Expires=Wed, 21 Oct 2026 07:28:00 GMT; Path=/, ${SESSION_COOKIE}=${token}; Path=/; max-age=60`;
    expect(sessionCookieOf([folded])).toEqual({ name: SESSION_COOKIE, value: token, maxAgeSeconds: 60 });
  });

  it('gives null without the studio session, or with an empty one', () => {
    expect(sessionCookieOf([])).toBeNull();
    expect(sessionCookieOf(['other=1; Path=/'])).toBeNull();
    expect(sessionCookieOf([`${SESSION_COOKIE}=; Path=/; Max-Age=0`])).toBeNull();
    expect(sessionCookieOf([`x${SESSION_COOKIE}=${token}`])).toBeNull();
  });
});

describe('checkTeamServer', () => {
  it('explains a server that refuses the address it was reached at (its Host guard)', async () => {
    // What a Takeline node answers when the Host is not one it serves (http/loopback-guard.ts).
    const refusing = async () =>
      new Response(JSON.stringify({ detail: 'Forbidden: requests must be addressed to the loopback service.' }), {
        status: 403,
        headers: { 'Content-Type': 'application/json' },
      });
    const check = await checkTeamServer({ url: 'https://takeline.example.com', key: 'tl_' + 'a'.repeat(40) }, refusing);
    expect(check).toEqual({
      ok: false,
      field: 'url',
      message: expect.stringMatching(/^https:\/\/takeline\.example\.com refused the request \(Forbidden: requests must be addressed to the loopback service\.\): the team server does not answer at this address/),
    });
  });
});
