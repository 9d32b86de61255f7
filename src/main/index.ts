import { join } from 'node:path';
import { BrowserWindow, Menu, app, clipboard, dialog, ipcMain, session, shell } from 'electron';
import { startService, type RunningService } from '../service/server';
import { registerIpcHandlers } from './ipc-handlers';
import { startLifecycle, type StudioWindow } from './lifecycle';
import { buildMenuTemplate } from './menu-template';
import { applyNavigationPolicy, isPermissionGranted } from './navigation-policy';
import { toChosenPaths, toOpenDialogOptions } from './open-dialog';
import { serviceStartOptions } from './service-options';
import { createWindowOptions } from './window-options';

// Wiring only: every decision lives in the small modules imported above, which are unit-tested with Electron
// mocked. This file is the thin layer that hands them the real Electron objects.

app.setName('Takeline'); // before getPath('userData') so the folder is named after the product
app.enableSandbox();

const log = (line: string): void => console.log(`[takeline] ${line}`);
const isDev = !app.isPackaged;
// Built layout: out/main/index.js beside out/preload/index.cjs and out/renderer/.
const preloadPath = join(import.meta.dirname, '../preload/index.cjs');
const serviceOptions = serviceStartOptions({
  env: process.env,
  userDataDir: app.getPath('userData'),
  studioDir: join(import.meta.dirname, '../renderer'),
  log,
});
const { dataDir } = serviceOptions;
const windowOptions = () => createWindowOptions({ preloadPath });

function createStudioWindow(service: RunningService): StudioWindow {
  const window = new BrowserWindow(windowOptions());
  window.once('ready-to-show', () => window.show());
  // The one-time sign-in link sets the studio's session cookie and redirects to '/', exactly as in a browser.
  void service
    .signInUrl()
    .then((url) => window.loadURL(url))
    .catch((error: unknown) => log(`studio failed to load: ${String(error)}`));
  return window;
}

function secureSessionAndContents(service: RunningService): void {
  const origin = new URL(service.url).origin;
  session.defaultSession.setPermissionRequestHandler((contents, permission, callback) =>
    callback(isPermissionGranted(permission, contents.getURL(), origin)),
  );
  session.defaultSession.setPermissionCheckHandler((_contents, permission, requestingOrigin) =>
    isPermissionGranted(permission, requestingOrigin, origin),
  );
  // Every web contents, including same-origin pop-ups, gets the navigation policy.
  app.on('web-contents-created', (_event, contents) =>
    applyNavigationPolicy(contents, {
      trustedOrigin: origin,
      openExternal: (url) => void shell.openExternal(url),
      childWindowOptions: windowOptions,
      log,
    }),
  );
}

function installMenu(service: RunningService): void {
  const template = buildMenuTemplate({
    platform: process.platform,
    appName: app.getName(),
    isDev,
    actions: {
      openInBrowser: () =>
        void service
          .signInUrl()
          .then((url) => shell.openExternal(url))
          .catch((error: unknown) => log(`could not open the studio in a browser: ${String(error)}`)),
      showDataFolder: () => void shell.openPath(dataDir),
      copyApiAddress: () => clipboard.writeText(service.url),
    },
  });
  Menu.setApplicationMenu(Menu.buildFromTemplate(template));
}

const lifecycle = startLifecycle<RunningService>({
  app,
  platform: process.platform,
  startService: () => startService(serviceOptions),
  onServiceReady: (service) => {
    log(`service at ${service.url} (data in ${dataDir})`);
    secureSessionAndContents(service);
    installMenu(service);
    registerIpcHandlers(ipcMain, {
      trustedOrigin: new URL(service.url).origin,
      apiKey: () => service.apiKey,
      showOpenDialog: async (options) => {
        const owner = BrowserWindow.getFocusedWindow();
        const dialogOptions = toOpenDialogOptions(options);
        return toChosenPaths(
          await (owner ? dialog.showOpenDialog(owner, dialogOptions) : dialog.showOpenDialog(dialogOptions)),
        );
      },
      showItemInFolder: (path) => shell.showItemInFolder(path),
    });
  },
  createWindow: createStudioWindow,
  showFatalError: (title, message) => dialog.showErrorBox(title, message),
  log,
});

lifecycle.started.catch((error: unknown) => {
  // The service is up but the window or menu could not be set up: report, then quit (which stops the service).
  log(`startup failed: ${String(error)}`);
  dialog.showErrorBox('Takeline could not start', String(error));
  app.quit();
});

// Ctrl+C in the terminal (electron-vite preview) or a service manager's SIGTERM: quit the normal way so the
// service stops its jobs cleanly.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => app.quit());
