import type { MenuItemConstructorOptions } from 'electron';
import { describe, expect, it, vi } from 'vitest';
import { buildMenuTemplate, type MenuActions } from './menu-template';

const actions = (): MenuActions => ({
  openInBrowser: vi.fn(),
  showDataFolder: vi.fn(),
  copyApiAddress: vi.fn(),
  chooseEmbedded: vi.fn(),
  chooseTeamServer: vi.fn(),
});

const embedded = { mode: 'embedded' } as const;

const items = (menu: MenuItemConstructorOptions | undefined) => menu?.submenu as MenuItemConstructorOptions[];
const roles = (menu: MenuItemConstructorOptions | undefined) =>
  items(menu).flatMap((item) => item.role ?? []);
const topLabels = (template: MenuItemConstructorOptions[]) => template.map((menu) => menu.label ?? menu.role);

describe('buildMenuTemplate', () => {
  it('follows macOS conventions', () => {
    const template = buildMenuTemplate({
      platform: 'darwin',
      appName: 'Takeline',
      isDev: false,
      server: embedded,
      actions: actions(),
    });
    expect(topLabels(template)).toEqual(['Takeline', 'File', 'Edit', 'View', 'windowMenu', 'help']);
    expect(roles(template[0])).toEqual(['about', 'services', 'hide', 'hideOthers', 'unhide', 'quit']);
    expect(roles(template[1])).toEqual(['close']);
    expect(roles(template[2])).toContain('pasteAndMatchStyle');
    expect(roles(template[4])).toEqual(['minimize', 'zoom', 'front', 'window']);
    expect(roles(template[5])).not.toContain('about');
  });

  it('puts Quit in File and About in Help elsewhere', () => {
    const template = buildMenuTemplate({
      platform: 'linux',
      appName: 'Takeline',
      isDev: false,
      server: embedded,
      actions: actions(),
    });
    expect(topLabels(template)).toEqual(['File', 'Edit', 'View', 'windowMenu', 'help']);
    expect(roles(template[0])).toEqual(['quit']);
    expect(items(template[0]).map((item) => item.label ?? item.role ?? item.type)).toEqual([
      'Open Studio in Browser',
      'Show Data Folder',
      'separator',
      'Studio Server',
      'separator',
      'quit',
    ]);
    expect(roles(template[1])).toEqual(['undo', 'redo', 'cut', 'copy', 'paste', 'delete', 'selectAll']);
    expect(roles(template[3])).toEqual(['minimize', 'zoom', 'close']);
    expect(roles(template[4])).toEqual(['about']);
  });

  it('shows developer tools only in development', () => {
    const dev = buildMenuTemplate({
      platform: 'win32',
      appName: 'Takeline',
      isDev: true,
      server: embedded,
      actions: actions(),
    });
    const prod = buildMenuTemplate({
      platform: 'win32',
      appName: 'Takeline',
      isDev: false,
      server: embedded,
      actions: actions(),
    });
    expect(roles(dev[2])).toContain('toggleDevTools');
    expect(roles(prod[2])).not.toContain('toggleDevTools');
  });

  it('wires the custom items to their actions', () => {
    const wired = actions();
    const template = buildMenuTemplate({
      platform: 'linux',
      appName: 'Takeline',
      isDev: false,
      server: embedded,
      actions: wired,
    });
    const click = (menu: MenuItemConstructorOptions | undefined, label: string) =>
      (items(menu).find((item) => item.label === label)?.click as () => void)();
    click(template[0], 'Open Studio in Browser');
    click(template[0], 'Show Data Folder');
    click(template[4], 'Copy API Address');
    expect(wired.openInBrowser).toHaveBeenCalledOnce();
    expect(wired.showDataFolder).toHaveBeenCalledOnce();
    expect(wired.copyApiAddress).toHaveBeenCalledOnce();
  });

  const serverItems = (template: MenuItemConstructorOptions[]) =>
    items(items(template[0]).find((item) => item.label === 'Studio Server'));

  it('marks the embedded service as the studio server and switches on a click', () => {
    const wired = actions();
    const template = buildMenuTemplate({ platform: 'linux', appName: 'Takeline', isDev: false, server: embedded, actions: wired });
    expect(serverItems(template).map(({ label, type, checked }) => ({ label, type, checked }))).toEqual([
      { label: 'Embedded Service', type: 'radio', checked: true },
      { label: 'Team Server…', type: 'radio', checked: false },
    ]);
    (serverItems(template)[1]!.click as () => void)();
    expect(wired.chooseTeamServer).toHaveBeenCalledOnce();
    (serverItems(template)[0]!.click as () => void)();
    expect(wired.chooseEmbedded).toHaveBeenCalledOnce();
  });

  it('on a team server, names it and has no data folder to show', () => {
    const template = buildMenuTemplate({
      platform: 'darwin',
      appName: 'Takeline',
      isDev: false,
      server: { mode: 'team', origin: 'https://takeline.example.com' },
      actions: actions(),
    });
    const file = template[1];
    expect(items(file).map((item) => item.label).filter(Boolean)).toEqual(['Open Studio in Browser', 'Studio Server']);
    const server = items(file).find((item) => item.label === 'Studio Server');
    expect(items(server).map(({ label, checked, enabled }) => ({ label, checked, enabled }))).toEqual([
      { label: 'Embedded Service', checked: false, enabled: undefined },
      { label: 'Team Server…', checked: true, enabled: undefined },
      { label: undefined, checked: undefined, enabled: undefined },
      { label: 'Connected to https://takeline.example.com', checked: undefined, enabled: false },
    ]);
  });
});
