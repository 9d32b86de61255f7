import type { MenuItemConstructorOptions } from 'electron';
import { describe, expect, it, vi } from 'vitest';
import { buildMenuTemplate, type MenuActions } from './menu-template';

const actions = (): MenuActions => ({
  openInBrowser: vi.fn(),
  showDataFolder: vi.fn(),
  copyApiAddress: vi.fn(),
});

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
      actions: actions(),
    });
    expect(topLabels(template)).toEqual(['File', 'Edit', 'View', 'windowMenu', 'help']);
    expect(roles(template[0])).toEqual(['quit']);
    expect(roles(template[1])).toEqual(['undo', 'redo', 'cut', 'copy', 'paste', 'delete', 'selectAll']);
    expect(roles(template[3])).toEqual(['minimize', 'zoom', 'close']);
    expect(roles(template[4])).toEqual(['about']);
  });

  it('shows developer tools only in development', () => {
    const dev = buildMenuTemplate({
      platform: 'win32',
      appName: 'Takeline',
      isDev: true,
      actions: actions(),
    });
    const prod = buildMenuTemplate({
      platform: 'win32',
      appName: 'Takeline',
      isDev: false,
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
});
