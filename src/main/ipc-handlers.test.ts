import { describe, expect, it, vi } from 'vitest';
import { IpcChannel } from '../shared/ipc';
import { IpcRejection, registerIpcHandlers, type InvokeEventLike, type IpcMainLike } from './ipc-handlers';

const ORIGIN = 'http://127.0.0.1:41000';

function setup() {
  const handlers = new Map<string, (event: InvokeEventLike, ...args: unknown[]) => Promise<unknown>>();
  const ipcMain: IpcMainLike = {
    handle: (channel, listener) => void handlers.set(channel, listener),
    removeHandler: (channel) => void handlers.delete(channel),
  };
  const services = {
    trustedOrigin: ORIGIN,
    apiKey: () => 'tl_secret',
    showOpenDialog: vi.fn(async () => ['/home/u/take1.wav']),
    showItemInFolder: vi.fn(),
  };
  const unregister = registerIpcHandlers(ipcMain, services);
  const studio: InvokeEventLike = { senderFrame: { url: `${ORIGIN}/sessions/1`, parent: null } };
  const call = (channel: string, event: InvokeEventLike, ...args: unknown[]) => {
    const handler = handlers.get(channel);
    if (!handler) throw new Error(`no handler for ${channel}`);
    return handler(event, ...args);
  };
  return { handlers, services, unregister, studio, call };
}

describe('registerIpcHandlers', () => {
  it('registers every channel of the contract and can unregister them', () => {
    const { handlers, unregister } = setup();
    expect([...handlers.keys()].sort()).toEqual(Object.values(IpcChannel).sort());
    unregister();
    expect(handlers.size).toBe(0);
  });

  it('answers the studio', async () => {
    const { call, studio, services } = setup();
    await expect(call(IpcChannel.apiKey, studio)).resolves.toBe('tl_secret');
    await expect(call(IpcChannel.openFile, studio)).resolves.toEqual(['/home/u/take1.wav']);
    expect(services.showOpenDialog).toHaveBeenLastCalledWith({});
    const options = {
      title: 'Add takes',
      multiple: true,
      filters: [{ name: 'Audio', extensions: ['wav', 'flac'] }],
    };
    await call(IpcChannel.openFile, studio, options);
    expect(services.showOpenDialog).toHaveBeenLastCalledWith(options);
    await expect(call(IpcChannel.revealInFolder, studio, '/home/u/take1.wav')).resolves.toBeUndefined();
    expect(services.showItemInFolder).toHaveBeenCalledWith('/home/u/take1.wav');
  });

  it('refuses senders that are not the studio', async () => {
    const { call } = setup();
    const senders: InvokeEventLike[] = [
      { senderFrame: null },
      { senderFrame: { url: 'https://evil.example/', parent: null } },
      { senderFrame: { url: 'http://127.0.0.1:9999/', parent: null } },
      { senderFrame: { url: 'file:///tmp/page.html', parent: null } },
      // An embedded frame on the right origin is still not the studio's top-level page.
      { senderFrame: { url: `${ORIGIN}/`, parent: {} } },
    ];
    for (const event of senders) {
      await expect(call(IpcChannel.apiKey, event)).rejects.toBeInstanceOf(IpcRejection);
    }
  });

  it('rejects arguments that do not match the contract', async () => {
    const { call, studio, services } = setup();
    const bad: [string, unknown[]][] = [
      [IpcChannel.apiKey, ['extra']],
      [IpcChannel.openFile, [{ title: 3 }]],
      [IpcChannel.openFile, [{ unknownOption: true }]],
      [IpcChannel.openFile, [{ filters: [{ name: 'x', extensions: ['.wav'] }] }]],
      [IpcChannel.openFile, [{}, {}]],
      [IpcChannel.revealInFolder, []],
      [IpcChannel.revealInFolder, [42]],
      [IpcChannel.revealInFolder, ['/tmp/a\0b']],
      [IpcChannel.revealInFolder, ['relative/path.wav']],
    ];
    for (const [channel, args] of bad) {
      await expect(
        call(channel, studio, ...args),
        `${channel} ${JSON.stringify(args)}`,
      ).rejects.toBeInstanceOf(IpcRejection);
    }
    expect(services.showOpenDialog).not.toHaveBeenCalled();
    expect(services.showItemInFolder).not.toHaveBeenCalled();
  });
});
