import { describe, expect, it, vi } from 'vitest';
import { IpcChannel } from '../shared/ipc';
import { createDesktopApi, type Invoke } from './bridge';

describe('createDesktopApi', () => {
  it('forwards each method to its own channel', async () => {
    const invoke = vi.fn(async (channel: string) => (channel === IpcChannel.apiKey ? 'key' : null));
    const api = createDesktopApi(invoke as unknown as Invoke);
    await expect(api.apiKey()).resolves.toBe('key');
    await api.openFile();
    await api.openFile({ multiple: true });
    await api.revealInFolder('/tmp/a.wav');
    expect(invoke.mock.calls).toEqual([
      [IpcChannel.apiKey],
      [IpcChannel.openFile],
      [IpcChannel.openFile, { multiple: true }],
      [IpcChannel.revealInFolder, '/tmp/a.wav'],
    ]);
  });
});
