import { describe, expect, it, vi } from 'vitest';
import { DEFAULT_SETTINGS } from './desktop-settings';
import { embeddedTarget, planStartup, teamTarget } from './studio-target';

const KEY = 'tl_' + 'q7'.repeat(20);
const stored = { storage: 'plain', value: KEY } as const;

describe('planStartup', () => {
  it('starts the embedded service by default and when it is chosen', () => {
    expect(planStartup({ settings: DEFAULT_SETTINGS, problem: null })).toEqual({ mode: 'embedded', notice: null });
    const remembered = { version: 1, server: 'embedded', team: { url: 'https://t.example', key: stored } } as const;
    expect(planStartup({ settings: remembered, problem: null })).toEqual({ mode: 'embedded', notice: null });
  });

  it('goes to the team server the settings name', () => {
    const settings = { version: 1, server: 'team', team: { url: 'https://t.example', key: stored } } as const;
    expect(planStartup({ settings, problem: null })).toEqual({ mode: 'team', origin: 'https://t.example', key: stored });
  });

  it('runs embedded on settings it could not use, and tells the user why and where the file is', () => {
    const plan = planStartup({ settings: DEFAULT_SETTINGS, problem: '/u/desktop-settings.json was not used: it is not JSON' });
    expect(plan.mode).toBe('embedded');
    expect(plan.mode === 'embedded' && plan.notice).toMatch(/embedded service this time[\s\S]*desktop-settings\.json was not used: it is not JSON[\s\S]*left as it is/);
  });
});

describe('studio targets', () => {
  it('embedded: the service’s address, key, sign-in link and stop', async () => {
    const service = {
      url: 'http://127.0.0.1:40001',
      apiKey: KEY,
      signInUrl: vi.fn(async () => 'http://127.0.0.1:40001/auth/signin?token=t'),
      stop: vi.fn(async () => {}),
    };
    const target = embeddedTarget(service, '/data');
    expect(target).toMatchObject({ mode: 'embedded', url: service.url, apiKey: KEY, dataDir: '/data' });
    await expect(target.entryUrl()).resolves.toBe('http://127.0.0.1:40001/auth/signin?token=t');
    await target.stop();
    expect(service.stop).toHaveBeenCalledOnce();
  });

  it('team: no data folder, nothing to stop, the browser gets the studio page', async () => {
    const fetch = vi.fn();
    const target = teamTarget('https://t.example', KEY, { fetch, setCookie: vi.fn() });
    expect(target).toMatchObject({ mode: 'team', url: 'https://t.example', apiKey: KEY, dataDir: null });
    await expect(target.browserUrl()).resolves.toBe('https://t.example/');
    await target.stop();
    expect(fetch).not.toHaveBeenCalled();
  });
});
