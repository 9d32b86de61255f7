import { join } from 'node:path';
import { BrowserWindow, Menu, app, clipboard, dialog, ipcMain, safeStorage, session, shell } from 'electron';
import { startService } from '../service/server';
import { chooseEmbedded, loadSettings, saveSettings, SETTINGS_FILE_NAME } from './desktop-settings';
import { registerIpcHandlers } from './ipc-handlers';
import { startLifecycle, type StudioWindow } from './lifecycle';
import { buildMenuTemplate } from './menu-template';
import { applyNavigationPolicy, isPermissionGranted } from './navigation-policy';
import { toChosenPaths, toOpenDialogOptions } from './open-dialog';
import { serviceStartOptions } from './service-options';
import {
  embeddedTarget,
  planStartup,
  StartCancelled,
  startTeam,
  type StudioTarget,
  type TeamProblemChoice,
} from './studio-target';
import type { Fetch, StudioSessionCookie } from './team-server-client';
import { createDialogActions, dialogPageUrl, dialogWindowOptions, registerDialogHandlers } from './team-server-dialog';
import { createWindowOptions } from './window-options';

// Wiring only: every decision lives in the small modules imported above, which are unit-tested with Electron
// mocked. This file is the thin layer that hands them the real Electron objects.

app.setName('Takeline'); // before getPath('userData') so the folder is named after the product
app.enableSandbox();

const log = (line: string): void => console.log(`[takeline] ${line}`);
const isDev = !app.isPackaged;
// Built layout: out/main/index.js beside out/preload/index.cjs (the studio's), settings.cjs (the team server
// dialog's) and out/renderer/.
const preloadPath = join(import.meta.dirname, '../preload/index.cjs');
const dialogPreloadPath = join(import.meta.dirname, '../preload/settings.cjs');
const userDataDir = app.getPath('userData');
const settingsFile = join(userDataDir, SETTINGS_FILE_NAME);
const serviceOptions = serviceStartOptions({
  env: process.env,
  userDataDir,
  studioDir: join(import.meta.dirname, '../renderer'),
  log,
});
const windowOptions = () => createWindowOptions({ preloadPath });

// A team server is called through the window's own network stack: the system proxy and certificate store
// apply, as they do for the studio the window then loads.
const sessionFetch: Fetch = (input, init) => session.defaultSession.fetch(input, init);
const setStudioCookie = async (origin: string, cookie: StudioSessionCookie): Promise<void> => {
  await session.defaultSession.cookies.set({
    url: origin,
    name: cookie.name,
    value: cookie.value,
    httpOnly: true,
    secure: origin.startsWith('https:'),
    sameSite: 'strict',
    ...(cookie.maxAgeSeconds > 0 ? { expirationDate: Date.now() / 1000 + cookie.maxAgeSeconds } : {}),
  });
};

const restart = (): void => {
  app.relaunch();
  app.quit(); // the lifecycle stops the embedded service's jobs first
};

const startEmbedded = async (): Promise<StudioTarget> => {
  const service = await startService(serviceOptions);
  // Only a team's nodes have no studio key; the desktop's own service is embedded unless its environment says otherwise.
  const apiKey = service.apiKey;
  if (apiKey === null) {
    await service.stop();
    throw new Error('The embedded service started as a team node (TAKELINE_DATABASE_URL is set): unset it, or choose Team Server in the File menu.');
  }
  return embeddedTarget({ url: service.url, apiKey, signInUrl: () => service.signInUrl(), stop: () => service.stop() }, serviceOptions.dataDir);
};

async function askAboutTeamServer(message: string): Promise<TeamProblemChoice> {
  const { response } = await dialog.showMessageBox({
    type: 'warning',
    buttons: ['Try Again', 'Use the Embedded Service', 'Quit'],
    defaultId: 0,
    cancelId: 2,
    noLink: true,
    message: 'The team server cannot be used',
    detail: `${message}\n\n“Use the Embedded Service” runs this computer’s own service this time; the team server stays chosen (File › Studio Server).`,
  });
  return (['retry', 'embedded', 'quit'] as const)[response] ?? 'quit';
}

// The settings decide before anything starts: the embedded service (and its data folder lock) only when it is
// the studio's server; a team server is checked once the app is ready (safeStorage and dialogs need it).
const plan = planStartup(loadSettings(settingsFile));
function startTarget(): Promise<StudioTarget> {
  if (plan.mode === 'embedded') {
    const { notice } = plan;
    if (notice !== null) {
      log(notice);
      void app.whenReady().then(() =>
        dialog.showMessageBox({ type: 'warning', message: 'Desktop settings not used', detail: notice }),
      );
    }
    return startEmbedded();
  }
  return app.whenReady().then(() =>
    startTeam(plan, {
      safe: safeStorage,
      fetch: sessionFetch,
      setCookie: setStudioCookie,
      startEmbedded,
      ask: askAboutTeamServer,
      log,
    }),
  );
}

function createStudioWindow(target: StudioTarget): StudioWindow {
  const window = new BrowserWindow(windowOptions());
  window.once('ready-to-show', () => window.show());
  // The embedded service's one-time link, or the team server signed in with the user's key: either sets the
  // studio's session cookie, then the studio loads at '/'.
  void target
    .entryUrl()
    .then((url) => window.loadURL(url))
    .catch((error: unknown) => {
      log(`studio failed to load: ${String(error)}`);
      if (target.mode !== 'team') return;
      // The team studio's own sign-in page still takes a key; the menu offers another server.
      dialog.showErrorBox('Could not sign in to the team server', error instanceof Error ? error.message : String(error));
      void window.loadURL(`${target.url}/`);
    });
  return window;
}

function secureSessionAndContents(target: StudioTarget): void {
  const origin = new URL(target.url).origin;
  session.defaultSession.setPermissionRequestHandler((contents, permission, callback, details) =>
    callback(isPermissionGranted(permission, contents.getURL(), origin, 'mediaTypes' in details ? (details.mediaTypes ?? []) : [])),
  );
  session.defaultSession.setPermissionCheckHandler((_contents, permission, requestingOrigin, details) =>
    isPermissionGranted(permission, requestingOrigin, origin, details.mediaType && details.mediaType !== 'unknown' ? [details.mediaType] : []),
  );
  // Every web contents, including same-origin pop-ups and the team server dialog, gets the navigation policy.
  app.on('web-contents-created', (_event, contents) =>
    applyNavigationPolicy(contents, {
      trustedOrigin: origin,
      openExternal: (url) => void shell.openExternal(url),
      childWindowOptions: windowOptions,
      log,
    }),
  );
}

let dialogWindow: BrowserWindow | null = null;
const liveDialog = (): BrowserWindow | null => (dialogWindow && !dialogWindow.isDestroyed() ? dialogWindow : null);

function openTeamServerDialog(target: StudioTarget): void {
  const open = liveDialog();
  if (open) return open.focus();
  const parent = BrowserWindow.getFocusedWindow();
  const window = new BrowserWindow({
    ...dialogWindowOptions(dialogPreloadPath),
    ...(parent ? { parent, modal: true } : {}),
  });
  dialogWindow = window;
  window.setMenu(null);
  window.once('ready-to-show', () => window.show());
  // Cancelled or not, the menu's mark goes back to the server the studio really uses.
  window.on('closed', () => {
    dialogWindow = null;
    installMenu(target);
  });
  void window.loadURL(dialogPageUrl());
}

async function switchToEmbedded(target: StudioTarget): Promise<void> {
  if (target.mode === 'embedded') return;
  const { response } = await dialog.showMessageBox({
    type: 'question',
    buttons: ['Switch and Restart', 'Cancel'],
    defaultId: 0,
    cancelId: 1,
    noLink: true,
    message: 'Use the embedded service?',
    detail: `The studio will open on this computer’s own service and data folder. ${target.url} stays saved for File › Studio Server › Team Server….`,
  });
  if (response !== 0) return installMenu(target);
  const { keptInvalidAs } = saveSettings(settingsFile, chooseEmbedded(loadSettings(settingsFile).settings));
  if (keptInvalidAs) log(`the settings file that could not be read was kept as ${keptInvalidAs}`);
  restart();
}

function installMenu(target: StudioTarget): void {
  const template = buildMenuTemplate({
    platform: process.platform,
    appName: app.getName(),
    isDev,
    server: target.mode === 'team' ? { mode: 'team', origin: target.url } : { mode: 'embedded' },
    actions: {
      openInBrowser: () =>
        void target
          .browserUrl()
          .then((url) => shell.openExternal(url))
          .catch((error: unknown) => log(`could not open the studio in a browser: ${String(error)}`)),
      showDataFolder: () => void (target.dataDir && shell.openPath(target.dataDir)),
      copyApiAddress: () => clipboard.writeText(target.url),
      chooseEmbedded: () =>
        void switchToEmbedded(target).catch((error: unknown) => {
          log(`could not switch to the embedded service: ${String(error)}`);
          dialog.showErrorBox('Could not switch to the embedded service', String(error));
        }),
      chooseTeamServer: () => openTeamServerDialog(target),
    },
  });
  Menu.setApplicationMenu(Menu.buildFromTemplate(template));
}

const lifecycle = startLifecycle<StudioTarget>({
  app,
  platform: process.platform,
  startService: startTarget,
  isCancellation: (error) => error instanceof StartCancelled,
  onServiceReady: (target) => {
    log(
      target.mode === 'team'
        ? `studio on the team server ${target.url} (no embedded service started)`
        : `service at ${target.url} (data in ${target.dataDir})`,
    );
    secureSessionAndContents(target);
    installMenu(target);
    registerIpcHandlers(ipcMain, {
      trustedOrigin: new URL(target.url).origin,
      apiKey: () => target.apiKey,
      showOpenDialog: async (options) => {
        const owner = BrowserWindow.getFocusedWindow();
        const dialogOptions = toOpenDialogOptions(options);
        return toChosenPaths(
          await (owner ? dialog.showOpenDialog(owner, dialogOptions) : dialog.showOpenDialog(dialogOptions)),
        );
      },
      showItemInFolder: (path) => shell.showItemInFolder(path),
    });
    registerDialogHandlers(
      ipcMain,
      {
        ...createDialogActions({
          settingsFile,
          safe: safeStorage,
          platform: process.platform,
          fetch: sessionFetch,
          runningMode: target.mode,
          restart,
          log,
        }),
        close: () => liveDialog()?.close(),
      },
      () => liveDialog()?.webContents.id ?? null,
    );
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
