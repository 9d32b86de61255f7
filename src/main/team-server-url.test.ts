import { describe, expect, it } from 'vitest';
import { checkApiKey, checkServerUrl, isCleartextRemote } from './team-server-url';

describe('checkServerUrl', () => {
  it('takes an http(s) origin, with or without the trailing slash, and gives it normalised', () => {
    expect(checkServerUrl('https://Takeline.Example.com')).toEqual({ ok: true, origin: 'https://takeline.example.com' });
    expect(checkServerUrl('  https://takeline.example.com/ ')).toEqual({ ok: true, origin: 'https://takeline.example.com' });
    expect(checkServerUrl('https://takeline.example.com:443/')).toEqual({ ok: true, origin: 'https://takeline.example.com' });
    expect(checkServerUrl('http://10.0.0.5:8765')).toEqual({ ok: true, origin: 'http://10.0.0.5:8765' });
    expect(checkServerUrl('http://[::1]:8765')).toEqual({ ok: true, origin: 'http://[::1]:8765' });
  });

  it('refuses what is not a server origin, saying why', () => {
    const refused = (input: string) => {
      const check = checkServerUrl(input);
      expect(check.ok, input).toBe(false);
      return check.ok ? '' : check.message;
    };
    expect(refused('')).toMatch(/Enter the team server/);
    expect(refused('takeline.example.com')).toMatch(/https:\/\/takeline\.example\.com/);
    expect(refused('ftp://takeline.example.com')).toMatch(/not ftp:/);
    expect(refused('file:///srv/takeline')).toMatch(/not file:/);
    expect(refused('https://ada:secret@takeline.example.com')).toMatch(/user name and password/);
    expect(refused('https://takeline.example.com/studio')).toMatch(/without a path.*\(https:\/\/takeline\.example\.com\)/);
    expect(refused('https://takeline.example.com/?key=tl_x')).toMatch(/without a path, query/);
    expect(refused('https://takeline.example.com/#x')).toMatch(/fragment/);
  });
});

describe('isCleartextRemote', () => {
  it('flags plain http to another machine only', () => {
    expect(isCleartextRemote('http://takeline.lan:8765')).toBe(true);
    expect(isCleartextRemote('http://10.1.2.3')).toBe(true);
    expect(isCleartextRemote('https://takeline.lan')).toBe(false);
    expect(isCleartextRemote('http://127.0.0.1:8765')).toBe(false);
    expect(isCleartextRemote('http://localhost:8765')).toBe(false);
    expect(isCleartextRemote('http://[::1]:8765')).toBe(false);
  });
});

describe('checkApiKey', () => {
  const key = 'tl_' + 'a1B2'.repeat(10);
  it('takes a key the service could have made, trimmed', () => {
    expect(checkApiKey(` ${key}\n`)).toEqual({ ok: true, key });
  });
  it('refuses an empty, cut or foreign key', () => {
    expect(checkApiKey('   ')).toMatchObject({ ok: false, message: expect.stringMatching(/Enter your API key/) });
    expect(checkApiKey(key.slice(0, 20))).toMatchObject({ ok: false, message: expect.stringMatching(/copied whole/) });
    expect(checkApiKey('sk-' + 'a'.repeat(40)).ok).toBe(false);
    expect(checkApiKey('tl_' + 'a'.repeat(32) + '-x').ok).toBe(false);
    expect(checkApiKey('tl_' + 'a'.repeat(198)).ok).toBe(false); // longer than the service's sign-in takes
  });
});
