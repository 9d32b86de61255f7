import type { MenuItemConstructorOptions } from 'electron';

export interface MenuActions {
  /** Opens the studio in the system browser (signed in). */
  openInBrowser(): void;
  /** Shows the service's data folder (database, recordings) in the file manager. */
  showDataFolder(): void;
  /** Copies the local API's base address, for scripts and curl. */
  copyApiAddress(): void;
}

export interface MenuTemplateInput {
  platform: NodeJS.Platform;
  appName: string;
  /** Developer tools in the View menu only for development builds. */
  isDev: boolean;
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

  const fileMenu: MenuItemConstructorOptions = {
    label: 'File',
    submenu: [
      { label: 'Open Studio in Browser', click: () => input.actions.openInBrowser() },
      { label: 'Show Data Folder', click: () => input.actions.showDataFolder() },
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
