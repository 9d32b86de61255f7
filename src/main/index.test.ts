import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { IpcChannel } from '../shared/ipc';
import { SettingsChannel } from '../shared/settings-ipc';
import { electronDouble, removeSignalHandlersAddedSince } from '../../test/helpers/electron-main';

// The Electron boundary, mocked (test/helpers/electron-main.ts): enough of app, BrowserWindow & co. to run the
// real wiring in index.ts, made afresh for each test (vi.doMock before each import). The embedded service is
// mocked too; test/desktop/team-mode.test.ts runs the team server path against a real service.
const fx = {
  userData: '',
  double: null as ReturnType<typeof electronDouble> | null,
  service: {
    url: 'http://127.0.0.1:45555',
    port: 45555,
    apiKey: 'tl_test_key',
    signInUrl: vi.fn(async () => 'http://127.0.0.1:45555/auth/signin?token=one-time'),
    stop: vi.fn(async () => {}),
  },
  startService: vi.fn(),
};

let signals: { SIGINT: number; SIGTERM: number };
beforeEach(() => {
  vi.resetModules();
  fx.userData = fs.mkdtempSync(path.join(os.tmpdir(), 'takeline-userdata-'));
  fx.double = electronDouble({ userData: fx.userData });
  fx.service.signInUrl.mockClear();
  fx.service.stop = vi.fn(async () => {});
  fx.startService = vi.fn(async () => fx.service);
  vi.doMock('electron', () => fx.double!.electron);
  vi.doMock('../service/server', () => ({ startService: fx.startService }));
  signals = { SIGINT: process.listenerCount('SIGINT'), SIGTERM: process.listenerCount('SIGTERM') };
});
afterEach(() => {
  removeSignalHandlersAddedSince(signals);
  fs.rmSync(fx.userData, { recursive: true, force: true });
});

const writeSettings = (value: unknown) =>
  fs.writeFileSync(path.join(fx.userData, 'desktop-settings.json'), typeof value === 'string' ? value : JSON.stringify(value));

describe('main entry wiring', () => {
  it('starts the service, opens the signed-in studio, and stops the service on quit', async () => {
    await import('./index');
    const { electron, windows } = fx.double!;
    const { service } = fx;

    expect(electron.app.setName).toHaveBeenCalledWith('Takeline');
    expect(electron.app.enableSandbox).toHaveBeenCalled();
    expect(fx.startService).toHaveBeenCalledWith(expect.objectContaining({ port: 0, dataDir: fx.userData }));
    const startOptions = fx.startService.mock.calls[0] as unknown as [{ env: NodeJS.ProcessEnv }];
    expect(startOptions[0].env.TAKELINE_STUDIO_DIR).toMatch(/renderer$/);

    fx.double!.markReady();
    await vi.waitFor(() => expect(windows).toHaveLength(1));
    const [window] = windows;
    expect(window!.options).toMatchObject({
      webPreferences: { contextIsolation: true, sandbox: true, nodeIntegration: false, webSecurity: true },
    });
    expect((window!.options as { webPreferences: { preload: string } }).webPreferences.preload).toMatch(
      /preload[/\\]index\.cjs$/,
    );
    await vi.waitFor(() => expect(window!.loadURL).toHaveBeenCalledWith('http://127.0.0.1:45555/auth/signin?token=one-time'));

    const channels = electron.ipcMain.handle.mock.calls.map(([channel]) => channel);
    expect(channels.sort()).toEqual([...Object.values(IpcChannel), ...Object.values(SettingsChannel)].sort());
    expect(electron.Menu.setApplicationMenu).toHaveBeenCalledOnce();
    expect(electron.session.defaultSession.setPermissionRequestHandler).toHaveBeenCalledOnce();
    expect(fx.double!.appListeners.get('web-contents-created')).toHaveLength(1);
    expect(electron.dialog.showMessageBox).not.toHaveBeenCalled();

    electron.app.quit();
    await vi.waitFor(() => expect(service.stop).toHaveBeenCalledOnce());
    await vi.waitFor(() => expect(electron.app.quit).toHaveBeenCalledTimes(2)); // again, once stopped
  });

  it('runs embedded on a settings file it cannot use, tells the user, and leaves the file alone', async () => {
    const written = '{"version": 1, "server": "team"}';
    writeSettings(written);
    await import('./index');
    const { electron, windows } = fx.double!;
    expect(fx.startService).toHaveBeenCalledOnce();
    fx.double!.markReady();
    await vi.waitFor(() => expect(windows).toHaveLength(1));
    await vi.waitFor(() => expect(electron.dialog.showMessageBox).toHaveBeenCalledOnce());
    const [box] = electron.dialog.showMessageBox.mock.calls[0] as unknown as [{ detail: string }];
    expect(box.detail).toMatch(/embedded service this time/);
    expect(box.detail).toContain(path.join(fx.userData, 'desktop-settings.json'));
    expect(fs.readFileSync(path.join(fx.userData, 'desktop-settings.json'), 'utf8')).toBe(written);
  });

  it('on a team server that cannot be reached: no embedded service unless the user asks for it', async () => {
    // A port nothing listens on: the check fails at once.
    const server = await import('node:net').then(({ createServer }) => createServer());
    const port = await new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));
    await new Promise((resolve) => server.close(resolve));
    writeSettings({
      version: 1,
      server: 'team',
      team: { url: `http://127.0.0.1:${port}`, key: { storage: 'plain', value: 'tl_' + 'x'.repeat(40) } },
    });
    await import('./index');
    const { electron, windows } = fx.double!;
    // Answers: try again (0), then quit (2).
    electron.dialog.showMessageBox.mockResolvedValueOnce({ response: 0 }).mockResolvedValueOnce({ response: 2 });
    fx.double!.markReady();
    await vi.waitFor(() => expect(electron.app.exit).toHaveBeenCalledWith(0));
    expect(electron.dialog.showMessageBox).toHaveBeenCalledTimes(2);
    const [box] = electron.dialog.showMessageBox.mock.calls[0] as unknown as [{ detail: string; buttons: string[] }];
    expect(box.detail).toMatch(new RegExp(`http://127\\.0\\.0\\.1:${port} could not be reached`));
    expect(box.buttons).toEqual(['Try Again', 'Use the Embedded Service', 'Quit']);
    expect(fx.startService).not.toHaveBeenCalled();
    expect(windows).toHaveLength(0);
    expect(electron.dialog.showErrorBox).not.toHaveBeenCalled();
  });

  it('starts the embedded service this time when the user chooses it, keeping the team server chosen', async () => {
    const settings = {
      version: 1,
      server: 'team',
      team: { url: 'http://127.0.0.1:1', key: { storage: 'plain', value: 'tl_' + 'x'.repeat(40) } },
    };
    writeSettings(settings);
    await import('./index');
    const { electron, windows } = fx.double!;
    electron.dialog.showMessageBox.mockResolvedValueOnce({ response: 1 });
    fx.double!.markReady();
    await vi.waitFor(() => expect(windows).toHaveLength(1));
    expect(fx.startService).toHaveBeenCalledOnce();
    await vi.waitFor(() => expect(windows[0]!.loadURL).toHaveBeenCalledWith('http://127.0.0.1:45555/auth/signin?token=one-time'));
    expect(JSON.parse(fs.readFileSync(path.join(fx.userData, 'desktop-settings.json'), 'utf8'))).toEqual(settings);
  });
});
