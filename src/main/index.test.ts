import { describe, expect, it, vi } from 'vitest';
import { IpcChannel } from '../shared/ipc';

// The Electron boundary, mocked: enough of app, BrowserWindow & co. to run the real wiring in index.ts.
const fx = vi.hoisted(() => {
  const appListeners = new Map<string, ((...args: unknown[]) => void)[]>();
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  const windows: { options: unknown; loadURL: ReturnType<typeof vi.fn> }[] = [];
  const service = {
    url: 'http://127.0.0.1:45555',
    port: 45555,
    apiKey: 'tl_test_key',
    signInUrl: vi.fn(async () => 'http://127.0.0.1:45555/auth/signin?token=one-time'),
    stop: vi.fn(async () => {}),
  };
  const app = {
    setName: vi.fn(),
    enableSandbox: vi.fn(),
    isPackaged: false,
    getPath: vi.fn((name: string) => `/home/u/.config/Takeline${name === 'userData' ? '' : `/${name}`}`),
    getName: () => 'Takeline',
    requestSingleInstanceLock: () => true,
    whenReady: () => ready,
    on: (event: string, listener: (...args: unknown[]) => void) =>
      appListeners.set(event, [...(appListeners.get(event) ?? []), listener]),
    quit: vi.fn(() => {
      const event = { preventDefault: vi.fn() };
      appListeners.get('before-quit')?.forEach((listener) => listener(event));
    }),
    exit: vi.fn(),
  };
  class BrowserWindow {
    static getFocusedWindow = () => null;
    loadURL = vi.fn(async () => {});
    once = vi.fn();
    isDestroyed = () => false;
    isMinimized = () => false;
    constructor(public options: unknown) {
      windows.push(this);
    }
  }
  const electron = {
    app,
    BrowserWindow,
    Menu: { buildFromTemplate: vi.fn((template: unknown) => ({ template })), setApplicationMenu: vi.fn() },
    clipboard: { writeText: vi.fn() },
    dialog: { showErrorBox: vi.fn(), showOpenDialog: vi.fn() },
    ipcMain: { handle: vi.fn(), removeHandler: vi.fn() },
    session: { defaultSession: { setPermissionRequestHandler: vi.fn(), setPermissionCheckHandler: vi.fn() } },
    shell: {
      openExternal: vi.fn(async () => {}),
      openPath: vi.fn(async () => ''),
      showItemInFolder: vi.fn(),
    },
  };
  return { electron, service, windows, markReady, appListeners, startService: vi.fn(async () => service) };
});

vi.mock('electron', () => fx.electron);
vi.mock('../service/server', () => ({ startService: fx.startService }));

describe('main entry wiring', () => {
  it('starts the service, opens the signed-in studio, and stops the service on quit', async () => {
    const signalsBefore = process.listenerCount('SIGTERM');
    await import('./index');
    const { electron, service } = fx;

    expect(electron.app.setName).toHaveBeenCalledWith('Takeline');
    expect(electron.app.enableSandbox).toHaveBeenCalled();
    expect(fx.startService).toHaveBeenCalledWith(
      expect.objectContaining({ port: 0, dataDir: '/home/u/.config/Takeline' }),
    );
    const startOptions = fx.startService.mock.calls[0] as unknown as [{ env: NodeJS.ProcessEnv }];
    expect(startOptions[0].env.TAKELINE_STUDIO_DIR).toMatch(/renderer$/);

    fx.markReady();
    await vi.waitFor(() => expect(fx.windows).toHaveLength(1));
    const [window] = fx.windows;
    expect(window!.options).toMatchObject({
      webPreferences: { contextIsolation: true, sandbox: true, nodeIntegration: false, webSecurity: true },
    });
    expect((window!.options as { webPreferences: { preload: string } }).webPreferences.preload).toMatch(
      /preload[/\\]index\.cjs$/,
    );
    await vi.waitFor(() => expect(window!.loadURL).toHaveBeenCalledWith('http://127.0.0.1:45555/auth/signin?token=one-time'));

    const channels = electron.ipcMain.handle.mock.calls.map(([channel]) => channel);
    expect(channels.sort()).toEqual(Object.values(IpcChannel).sort());
    expect(electron.Menu.setApplicationMenu).toHaveBeenCalledOnce();
    expect(electron.session.defaultSession.setPermissionRequestHandler).toHaveBeenCalledOnce();
    expect(fx.appListeners.get('web-contents-created')).toHaveLength(1);

    electron.app.quit();
    await vi.waitFor(() => expect(service.stop).toHaveBeenCalledOnce());
    await vi.waitFor(() => expect(electron.app.quit).toHaveBeenCalledTimes(2)); // again, once stopped

    // index.ts forwards SIGINT/SIGTERM to app.quit; leave the test runner's handlers as they were.
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process
        .listeners(signal)
        .slice(signalsBefore)
        .forEach((listener) => process.off(signal, listener));
    }
  });
});
