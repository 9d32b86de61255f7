import type { MenuItemConstructorOptions } from 'electron';

export interface MenuActions {
  /** Opens the studio in the system browser (signed in). */
  openInBrowser(): void;
  /** Shows the service's data folder (database, recordings) in the file manager. */
  showDataFolder(): void;
  /** Copies the API's base address (the embedded service's or the team server's), for scripts and curl. */
  copyApiAddress(): void;
  /** Switches the studio to the embedded service (saved, then the app restarts). */
  chooseEmbedded(): void;
  /** Opens the team server dialog (address and key, checked against the server before they are saved). */
  chooseTeamServer(): void;
}

/** Which service the running studio uses. */
export type MenuServer = { mode: 'embedded' } | { mode: 'team'; origin: string };

export interface MenuTemplateInput {
  platform: NodeJS.Platform;
  appName: string;
  /** Developer tools in the View menu only for development builds. */
  isDev: boolean;
  server: MenuServer;
  actions: MenuActions;
}

/**
 * The application menu as a template, built from roles so the OS supplies labels, accelerators and behaviour.
 * macOS gets the app menu (About, Services, Hide, Quit) and the Window/Speech conventions; elsewhere Quit lives
 * in File and About in Help.
 */
export function buildMenuTemplate(input: MenuTemplateInput): MenuItemConstructorOptions[] {
  const mac = input.platform === 'darwin';
  const sep: MenuItemConstructorOptions = { type: 'separator' };

  const appMenu: MenuItemConstructorOptions = {
    label: input.appName,
    submenu: [
      { role: 'about' },
      sep,
      { role: 'services' },
      sep,
      { role: 'hide' },
      { role: 'hideOthers' },
      { role: 'unhide' },
      sep,
      { role: 'quit' },
    ],
  };

  const { server } = input;
  // Radio items: Electron checks the clicked one itself; the app rebuilds the menu from the running mode after
  // a dialog is cancelled, so the mark never shows a choice that was not made.
  const serverMenu: MenuItemConstructorOptions = {
    label: 'Studio Server',
    submenu: [
      {
        label: 'Embedded Service',
        type: 'radio',
        checked: server.mode === 'embedded',
        click: () => input.actions.chooseEmbedded(),
      },
      {
        label: 'Team Server…',
        type: 'radio',
        checked: server.mode === 'team',
        click: () => input.actions.chooseTeamServer(),
      },
      ...(server.mode === 'team'
        ? ([sep, { label: `Connected to ${server.origin}`, enabled: false }] satisfies MenuItemConstructorOptions[])
        : []),
    ],
  };

  const fileMenu: MenuItemConstructorOptions = {
    label: 'File',
    submenu: [
      { label: 'Open Studio in Browser', click: () => input.actions.openInBrowser() },
      // A team server's files are on the team's storage, not on this machine.
      ...(server.mode === 'embedded'
        ? [{ label: 'Show Data Folder', click: () => input.actions.showDataFolder() } satisfies MenuItemConstructorOptions]
        : []),
      sep,
      serverMenu,
      sep,
      mac ? { role: 'close' } : { role: 'quit' },
    ],
  };

  const editMenu: MenuItemConstructorOptions = {
    label: 'Edit',
    submenu: [
      { role: 'undo' },
      { role: 'redo' },
      sep,
      { role: 'cut' },
      { role: 'copy' },
      { role: 'paste' },
      ...(mac
        ? ([
            { role: 'pasteAndMatchStyle' },
            { role: 'delete' },
            { role: 'selectAll' },
            sep,
            { label: 'Speech', submenu: [{ role: 'startSpeaking' }, { role: 'stopSpeaking' }] },
          ] satisfies MenuItemConstructorOptions[])
        : ([{ role: 'delete' }, sep, { role: 'selectAll' }] satisfies MenuItemConstructorOptions[])),
    ],
  };

  const viewMenu: MenuItemConstructorOptions = {
    label: 'View',
    submenu: [
      { role: 'reload' },
      { role: 'forceReload' },
      ...(input.isDev ? [{ role: 'toggleDevTools' } satisfies MenuItemConstructorOptions] : []),
      sep,
      { role: 'resetZoom' },
      { role: 'zoomIn' },
      { role: 'zoomOut' },
      sep,
      { role: 'togglefullscreen' },
    ],
  };

  const windowMenu: MenuItemConstructorOptions = {
    role: 'windowMenu',
    submenu: mac
      ? [{ role: 'minimize' }, { role: 'zoom' }, sep, { role: 'front' }, sep, { role: 'window' }]
      : [{ role: 'minimize' }, { role: 'zoom' }, { role: 'close' }],
  };

  const helpMenu: MenuItemConstructorOptions = {
    role: 'help',
    submenu: [
      { label: 'Copy API Address', click: () => input.actions.copyApiAddress() },
      ...(mac ? [] : [sep, { role: 'about' } satisfies MenuItemConstructorOptions]),
    ],
  };

  return [...(mac ? [appMenu] : []), fileMenu, editMenu, viewMenu, windowMenu, helpMenu];
}
