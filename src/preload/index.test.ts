import { beforeEach, describe, expect, it, vi } from 'vitest';
import { DESKTOP_API_KEY, IpcChannel, type TakelineDesktopApi } from '../shared/ipc';

const electron = vi.hoisted(() => ({
  contextBridge: { exposeInMainWorld: vi.fn() },
  ipcRenderer: { invoke: vi.fn(async () => 'from-main') },
}));
vi.mock('electron', () => electron);

describe('preload entry', () => {
  beforeEach(() => vi.resetModules());

  it('exposes only the desktop API, backed by ipcRenderer.invoke', async () => {
    await import('./index');
    expect(electron.contextBridge.exposeInMainWorld).toHaveBeenCalledOnce();
    const [key, api] = electron.contextBridge.exposeInMainWorld.mock.calls[0] as unknown as [
      string,
      TakelineDesktopApi,
    ];
    expect(key).toBe(DESKTOP_API_KEY);
    expect(Object.keys(api).sort()).toEqual(['apiKey', 'openFile', 'revealInFolder']);
    await expect(api.apiKey()).resolves.toBe('from-main');
    expect(electron.ipcRenderer.invoke).toHaveBeenCalledWith(IpcChannel.apiKey);
  });
});
