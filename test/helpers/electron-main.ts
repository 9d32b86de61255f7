import { vi } from 'vitest';

/**
 * The Electron boundary of src/main/index.ts, as a double: enough of app, BrowserWindow, session & co. to run
 * the real wiring. Use with `vi.mock('electron', async () => (await import('…/electron-main')).electronDouble())`
 * and import src/main/index.ts afterwards. Network calls go through `fetch` (Node's, to a real service).
 */
export function electronDouble(options: { userData: string }) {
  const appListeners = new Map<string, ((...args: unknown[]) => void)[]>();
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  let nextId = 1;
  const windows: FakeWindow[] = [];

  class FakeWindow {
    static getFocusedWindow = () => null;
    readonly webContents = { id: nextId++ };
    readonly listeners = new Map<string, (() => void)[]>();
    loadURL = vi.fn(async (_url: string) => {});
    once = vi.fn();
    on = vi.fn((event: string, listener: () => void) => this.listeners.set(event, [...(this.listeners.get(event) ?? []), listener]));
    setMenu = vi.fn();
    focus = vi.fn();
    close = vi.fn();
    isDestroyed = () => false;
    isMinimized = () => false;
    constructor(public options: unknown) {
      windows.push(this);
    }
  }

  const app = {
    setName: vi.fn(),
    enableSandbox: vi.fn(),
    isPackaged: false,
    getPath: vi.fn((name: string) => (name === 'userData' ? options.userData : `${options.userData}/${name}`)),
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
    relaunch: vi.fn(),
  };

  const electron = {
    app,
    BrowserWindow: FakeWindow,
    Menu: { buildFromTemplate: vi.fn((template: unknown) => ({ template })), setApplicationMenu: vi.fn() },
    clipboard: { writeText: vi.fn() },
    dialog: { showErrorBox: vi.fn(), showOpenDialog: vi.fn(), showMessageBox: vi.fn(async () => ({ response: 0 })) },
    ipcMain: { handle: vi.fn(), removeHandler: vi.fn() },
    // No keychain here: keys are kept as they are (the app says so).
    safeStorage: {
      isAsyncEncryptionAvailable: vi.fn(async () => false),
      getSelectedStorageBackend: () => 'basic_text',
      encryptStringAsync: vi.fn(),
      decryptStringAsync: vi.fn(),
    },
    session: {
      defaultSession: {
        setPermissionRequestHandler: vi.fn(),
        setPermissionCheckHandler: vi.fn(),
        fetch: vi.fn((input: string, init?: RequestInit) => fetch(input, init)),
        cookies: { set: vi.fn(async (_details: Record<string, unknown>) => {}) },
      },
    },
    shell: {
      openExternal: vi.fn(async () => {}),
      openPath: vi.fn(async () => ''),
      showItemInFolder: vi.fn(),
    },
  };
  return { electron, windows, markReady, appListeners };
}

/** index.ts forwards SIGINT/SIGTERM to app.quit; a test removes the handlers it added. */
export function removeSignalHandlersAddedSince(counts: { SIGINT: number; SIGTERM: number }): void {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process
      .listeners(signal)
      .slice(counts[signal])
      .forEach((listener) => process.off(signal, listener));
  }
}
