import { beforeEach, describe, expect, it, vi } from 'vitest';
import { SETTINGS_API_KEY, SettingsChannel, type TakelineSettingsApi } from '../shared/settings-ipc';

const electron = vi.hoisted(() => ({
  contextBridge: { exposeInMainWorld: vi.fn() },
  ipcRenderer: { invoke: vi.fn(async () => ({ ok: true, message: 'fine' })) },
}));
vi.mock('electron', () => electron);

describe('settings dialog preload', () => {
  beforeEach(() => vi.resetModules());

  it('exposes only the dialog API, each method on its own channel', async () => {
    await import('./settings');
    expect(electron.contextBridge.exposeInMainWorld).toHaveBeenCalledOnce();
    const [key, api] = electron.contextBridge.exposeInMainWorld.mock.calls[0] as unknown as [string, TakelineSettingsApi];
    expect(key).toBe(SETTINGS_API_KEY);
    expect(Object.keys(api).sort()).toEqual(['check', 'close', 'current', 'save']);
    const form = { url: 'https://takeline.example.com', key: '' };
    await api.current();
    await api.check(form);
    await expect(api.save(form)).resolves.toEqual({ ok: true, message: 'fine' });
    await api.close();
    expect(electron.ipcRenderer.invoke.mock.calls).toEqual([
      [SettingsChannel.current],
      [SettingsChannel.check, form],
      [SettingsChannel.save, form],
      [SettingsChannel.close],
    ]);
  });
});
