/**
 * The desktop app's life: one instance, the service started before the first window, windows re-created on
 * macOS dock activation, and quitting held back until the service has stopped its jobs (they resume on the
 * next start). Electron is injected through the narrow interfaces below so this logic is testable without it.
 */

export interface QuitEvent {
  preventDefault(): void;
}

export interface LifecycleApp {
  requestSingleInstanceLock(): boolean;
  whenReady(): Promise<unknown>;
  on(event: 'second-instance' | 'activate' | 'window-all-closed', listener: () => void): unknown;
  on(event: 'before-quit', listener: (event: QuitEvent) => void): unknown;
  quit(): void;
  exit(code?: number): void;
}

export interface StudioWindow {
  isDestroyed(): boolean;
  isMinimized(): boolean;
  restore(): void;
  show(): void;
  focus(): void;
}

export interface StoppableService {
  stop(): Promise<void>;
}

export interface LifecycleDeps<S extends StoppableService> {
  app: LifecycleApp;
  platform: NodeJS.Platform;
  startService(): Promise<S>;
  /** Runs once the service is up and the app is ready, before the first window (IPC handlers, menu). */
  onServiceReady(service: S): void;
  createWindow(service: S): StudioWindow;
  showFatalError(title: string, message: string): void;
  log(line: string): void;
  /** How long quitting waits for the service to stop before giving up on it. */
  stopTimeoutMs?: number;
  /** A start the user called off (e.g. "Quit" when the team server cannot be reached): leave without an error. */
  isCancellation?(error: unknown): boolean;
}

export type LifecyclePhase = 'secondary' | 'starting' | 'running' | 'stopping' | 'stopped' | 'failed';

export interface Lifecycle {
  /** Settles when startup is done: the service when it runs, null for a second instance or a failed start. */
  readonly started: Promise<unknown>;
  phase(): LifecyclePhase;
}

const DEFAULT_STOP_TIMEOUT_MS = 30_000;

export function startLifecycle<S extends StoppableService>(deps: LifecycleDeps<S>): Lifecycle {
  const { app } = deps;
  let phase: LifecyclePhase = 'starting';

  if (!app.requestSingleInstanceLock()) {
    // The first instance owns the data folder and gets our 'second-instance' event; this one just leaves.
    phase = 'secondary';
    app.quit();
    return { started: Promise.resolve(null), phase: () => phase };
  }

  let service: S | null = null;
  let mainWindow: StudioWindow | null = null;
  const liveWindow = (): StudioWindow | null => (mainWindow && !mainWindow.isDestroyed() ? mainWindow : null);

  const openWindow = (running: S): void => {
    mainWindow = deps.createWindow(running);
  };

  const servicePromise = deps.startService();

  app.on('second-instance', () => {
    const window = liveWindow();
    if (window) {
      if (window.isMinimized()) window.restore();
      window.show();
      window.focus();
    } else if (service && phase === 'running') {
      openWindow(service);
    }
  });

  app.on('activate', () => {
    if (service && phase === 'running' && !liveWindow()) openWindow(service);
  });

  app.on('window-all-closed', () => {
    // macOS apps stay alive without windows until the user quits explicitly.
    if (deps.platform !== 'darwin') app.quit();
  });

  app.on('before-quit', (event) => {
    if (phase === 'stopped' || phase === 'failed') return;
    event.preventDefault();
    if (phase === 'stopping') return;
    phase = 'stopping';
    void stopService().finally(() => {
      phase = 'stopped';
      app.quit();
    });
  });

  const stopService = async (): Promise<void> => {
    // Quitting during startup: let the start settle, then stop what was started.
    const running = service ?? (await servicePromise.catch(() => null));
    if (!running) return;
    deps.log('stopping service…');
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), deps.stopTimeoutMs ?? DEFAULT_STOP_TIMEOUT_MS);
    });
    try {
      const outcome = await Promise.race([running.stop().then(() => 'stopped' as const), timeout]);
      deps.log(outcome === 'stopped' ? 'service stopped' : 'service did not stop in time; quitting anyway');
    } catch (error) {
      deps.log(`service stop failed: ${describe(error)}`);
    } finally {
      clearTimeout(timer);
    }
  };

  const started = Promise.all([servicePromise, app.whenReady()]).then(
    ([running]) => {
      service = running;
      if (phase !== 'starting') return running; // a quit arrived while starting; before-quit stops it
      phase = 'running';
      deps.onServiceReady(running);
      openWindow(running);
      return running;
    },
    (error: unknown) => {
      deps.log(`service failed to start: ${describe(error)}`);
      if (phase !== 'starting') return null; // already quitting: no dialog
      phase = 'failed';
      if (deps.isCancellation?.(error)) {
        app.exit(0);
        return null;
      }
      deps.showFatalError(
        'Takeline could not start',
        `The studio's service failed to start.\n\n${describe(error)}`,
      );
      app.exit(1);
      return null;
    },
  );

  return { started, phase: () => phase };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
