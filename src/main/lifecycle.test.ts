import { describe, expect, it, vi } from 'vitest';
import { startLifecycle, type LifecycleApp, type QuitEvent, type StudioWindow } from './lifecycle';

type Listener = (event: QuitEvent) => void;

/** An app double that records listeners and lets a test fire Electron's events. */
function fakeApp(options: { lock?: boolean } = {}) {
  const listeners = new Map<string, Listener[]>();
  let resolveReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => (resolveReady = resolve));
  const quitEvents: QuitEvent[] = [];
  const app = {
    requestSingleInstanceLock: vi.fn(() => options.lock ?? true),
    whenReady: () => ready,
    on: (event: string, listener: Listener) =>
      listeners.set(event, [...(listeners.get(event) ?? []), listener]),
    // Like Electron: quit() emits before-quit, and quits unless a listener prevents it.
    quit: vi.fn(() => {
      let prevented = false;
      const event = { preventDefault: () => (prevented = true) };
      quitEvents.push(event);
      listeners.get('before-quit')?.forEach((listener) => listener(event));
      if (!prevented) app.quitted = true;
    }),
    exit: vi.fn(),
    quitted: false,
  };
  const emit = (event: string) =>
    listeners.get(event)?.forEach((listener) => listener({ preventDefault() {} }));
  return { app: app as LifecycleApp & typeof app, emit, ready: resolveReady, quitEvents };
}

function fakeWindow(): StudioWindow & { destroyed: boolean; minimized: boolean } {
  const window = {
    destroyed: false,
    minimized: false,
    isDestroyed: () => window.destroyed,
    isMinimized: () => window.minimized,
    restore: vi.fn(() => (window.minimized = false)),
    show: vi.fn(),
    focus: vi.fn(),
  };
  return window;
}

function fakeService() {
  let finishStop: () => void = () => {};
  const service = {
    url: 'http://127.0.0.1:40000',
    stop: vi.fn(() => new Promise<void>((resolve) => (finishStop = resolve))),
  };
  return { service, finishStop: () => finishStop() };
}

function setup(platform: NodeJS.Platform = 'linux', lock = true) {
  const app = fakeApp({ lock });
  const { service, finishStop } = fakeService();
  const windows: ReturnType<typeof fakeWindow>[] = [];
  const deps = {
    app: app.app,
    platform,
    startService: vi.fn(async () => service),
    onServiceReady: vi.fn(),
    createWindow: vi.fn(() => {
      const window = fakeWindow();
      windows.push(window);
      return window;
    }),
    showFatalError: vi.fn(),
    log: vi.fn(),
    stopTimeoutMs: 1_000,
  };
  const lifecycle = startLifecycle(deps);
  return { ...app, deps, lifecycle, service, finishStop, windows };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('startLifecycle', () => {
  it('leaves at once when another instance holds the lock', async () => {
    const { app, deps, lifecycle } = setup('linux', false);
    expect(await lifecycle.started).toBeNull();
    expect(lifecycle.phase()).toBe('secondary');
    expect(app.quit).toHaveBeenCalled();
    expect(deps.startService).not.toHaveBeenCalled();
  });

  it('starts the service, then sets up and opens the studio once the app is ready', async () => {
    const { deps, lifecycle, ready, service } = setup();
    expect(deps.startService).toHaveBeenCalledOnce();
    await flush();
    expect(deps.createWindow).not.toHaveBeenCalled(); // not before app ready
    ready();
    expect(await lifecycle.started).toBe(service);
    expect(lifecycle.phase()).toBe('running');
    expect(deps.onServiceReady).toHaveBeenCalledWith(service);
    expect(deps.createWindow).toHaveBeenCalledWith(service);
    expect(deps.onServiceReady.mock.invocationCallOrder[0]).toBeLessThan(
      deps.createWindow.mock.invocationCallOrder[0]!,
    );
  });

  it('focuses (and restores) the existing window for a second instance', async () => {
    const { emit, lifecycle, ready, windows, deps } = setup();
    ready();
    await lifecycle.started;
    windows[0]!.minimized = true;
    emit('second-instance');
    expect(windows[0]!.restore).toHaveBeenCalled();
    expect(windows[0]!.focus).toHaveBeenCalled();
    expect(deps.createWindow).toHaveBeenCalledTimes(1);
  });

  it('reopens a window on activate or second instance when none is left', async () => {
    const { emit, lifecycle, ready, windows, deps } = setup('darwin');
    ready();
    await lifecycle.started;
    emit('activate');
    expect(deps.createWindow).toHaveBeenCalledTimes(1); // still has one
    windows[0]!.destroyed = true;
    emit('activate');
    expect(deps.createWindow).toHaveBeenCalledTimes(2);
    windows[1]!.destroyed = true;
    emit('second-instance');
    expect(deps.createWindow).toHaveBeenCalledTimes(3);
  });

  it('quits when the last window closes, except on macOS', async () => {
    const linux = setup('linux');
    linux.emit('window-all-closed');
    expect(linux.app.quit).toHaveBeenCalled();
    const mac = setup('darwin');
    mac.emit('window-all-closed');
    expect(mac.app.quit).not.toHaveBeenCalled();
  });

  it('holds quitting until the service has stopped, and stops it once', async () => {
    const { app, lifecycle, ready, service, finishStop, quitEvents } = setup();
    ready();
    await lifecycle.started;
    app.quit();
    app.quit(); // a second Cmd+Q while stopping
    expect(app.quitted).toBe(false);
    expect(lifecycle.phase()).toBe('stopping');
    await flush();
    expect(service.stop).toHaveBeenCalledOnce();
    finishStop();
    await vi.waitFor(() => expect(app.quitted).toBe(true));
    expect(lifecycle.phase()).toBe('stopped');
    expect(quitEvents).toHaveLength(3);
  });

  it('stops a service that was still starting when quit was asked for, without opening a window', async () => {
    const { app, deps, lifecycle, ready, service, finishStop } = setup();
    app.quit();
    ready();
    await lifecycle.started;
    await flush();
    expect(deps.createWindow).not.toHaveBeenCalled();
    expect(service.stop).toHaveBeenCalledOnce();
    finishStop();
    await vi.waitFor(() => expect(app.quitted).toBe(true));
  });

  it('gives up waiting for a service that does not stop in time', async () => {
    vi.useFakeTimers();
    try {
      const { app, deps, lifecycle, ready } = setup();
      ready();
      await lifecycle.started;
      app.quit();
      await vi.advanceTimersByTimeAsync(1_000);
      expect(app.quitted).toBe(true);
      expect(deps.log).toHaveBeenCalledWith(expect.stringContaining('did not stop in time'));
    } finally {
      vi.useRealTimers();
    }
  });

  it('quits even when stopping fails', async () => {
    const { app, deps, lifecycle, ready, service } = setup();
    service.stop.mockRejectedValueOnce(new Error('disk gone'));
    ready();
    await lifecycle.started;
    app.quit();
    await vi.waitFor(() => expect(app.quitted).toBe(true));
    expect(deps.log).toHaveBeenCalledWith('service stop failed: disk gone');
  });

  it('reports a service that cannot start and exits with an error', async () => {
    const app = fakeApp();
    const deps = {
      app: app.app,
      platform: 'linux' as const,
      startService: vi.fn(async () => {
        throw new Error('port in use');
      }),
      onServiceReady: vi.fn(),
      createWindow: vi.fn(fakeWindow),
      showFatalError: vi.fn(),
      log: vi.fn(),
    };
    const lifecycle = startLifecycle(deps);
    app.ready();
    expect(await lifecycle.started).toBeNull();
    expect(lifecycle.phase()).toBe('failed');
    expect(deps.showFatalError).toHaveBeenCalledWith(
      'Takeline could not start',
      expect.stringContaining('port in use'),
    );
    expect(app.app.exit).toHaveBeenCalledWith(1);
    expect(deps.createWindow).not.toHaveBeenCalled();
    // Quitting afterwards is not held back: there is nothing to stop.
    app.app.quit();
    expect(app.app.quitted).toBe(true);
  });

  it('leaves without an error when the user called the start off', async () => {
    const app = fakeApp();
    class Cancelled extends Error {}
    const deps = {
      app: app.app,
      platform: 'linux' as const,
      startService: vi.fn(async () => {
        throw new Cancelled('the user chose to quit');
      }),
      onServiceReady: vi.fn(),
      createWindow: vi.fn(fakeWindow),
      showFatalError: vi.fn(),
      log: vi.fn(),
      isCancellation: (error: unknown) => error instanceof Cancelled,
    };
    const lifecycle = startLifecycle(deps);
    app.ready();
    expect(await lifecycle.started).toBeNull();
    expect(deps.showFatalError).not.toHaveBeenCalled();
    expect(app.app.exit).toHaveBeenCalledWith(0);
    expect(deps.createWindow).not.toHaveBeenCalled();
  });
});
