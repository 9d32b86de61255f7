import { createHash } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { SettingsChannel } from '../shared/settings-ipc';
import { dialogPageHtml, dialogPageUrl, dialogWindowOptions, registerDialogHandlers, type DialogInvokeEvent } from './team-server-dialog';

type Handler = (event: DialogInvokeEvent, ...args: unknown[]) => Promise<unknown>;

function register(dialogId: number | null = 7) {
  const handlers = new Map<string, Handler>();
  const ipcMain = { handle: (channel: string, handler: Handler) => handlers.set(channel, handler), removeHandler: vi.fn() };
  const actions = {
    current: vi.fn(async () => ({ mode: 'embedded' as const, url: '', hasSavedKey: false, keyProtection: 'os-keychain' as const })),
    check: vi.fn(async () => ({ ok: true as const, message: 'fine' })),
    save: vi.fn(async () => ({ ok: true as const, message: 'saved' })),
    close: vi.fn(),
  };
  const unregister = registerDialogHandlers(ipcMain, actions, () => dialogId);
  return { handlers, actions, ipcMain, unregister };
}

const fromDialog: DialogInvokeEvent = { sender: { id: 7 }, senderFrame: { parent: null } };
const form = { url: 'https://t.example', key: '' };

describe('team server dialog IPC', () => {
  it('answers the dialog window on every channel of the contract', async () => {
    const { handlers, actions, ipcMain, unregister } = register();
    expect([...handlers.keys()].sort()).toEqual(Object.values(SettingsChannel).sort());
    await handlers.get(SettingsChannel.current)!(fromDialog);
    await expect(handlers.get(SettingsChannel.check)!(fromDialog, form)).resolves.toEqual({ ok: true, message: 'fine' });
    await handlers.get(SettingsChannel.save)!(fromDialog, form);
    await handlers.get(SettingsChannel.close)!(fromDialog);
    expect(actions.current).toHaveBeenCalledOnce();
    expect(actions.check).toHaveBeenCalledWith(form);
    expect(actions.save).toHaveBeenCalledWith(form);
    expect(actions.close).toHaveBeenCalledOnce();
    unregister();
    expect(ipcMain.removeHandler).toHaveBeenCalledTimes(4);
  });

  it('refuses other windows, embedded frames, a closed dialog and malformed arguments', async () => {
    const { handlers, actions } = register();
    const save = handlers.get(SettingsChannel.save)!;
    await expect(save({ sender: { id: 8 }, senderFrame: { parent: null } }, form)).rejects.toThrow(/not the team server dialog/);
    await expect(save({ sender: { id: 7 }, senderFrame: { parent: {} } }, form)).rejects.toThrow(/not the team server dialog/);
    await expect(save({ sender: { id: 7 }, senderFrame: null }, form)).rejects.toThrow(/not the team server dialog/);
    await expect(save(fromDialog, { url: 'x' })).rejects.toThrow(/invalid arguments/);
    await expect(save(fromDialog, { ...form, extra: 1 })).rejects.toThrow(/invalid arguments/);
    await expect(save(fromDialog, { ...form, key: 'k'.repeat(201) })).rejects.toThrow(/invalid arguments/);
    await expect(handlers.get(SettingsChannel.current)!(fromDialog, 'x')).rejects.toThrow(/invalid arguments/);
    const closed = register(null);
    await expect(closed.handlers.get(SettingsChannel.check)!(fromDialog, form)).rejects.toThrow(/not the team server dialog/);
    expect(actions.save).not.toHaveBeenCalled();
  });
});

describe('team server dialog page', () => {
  it('runs only its own script and style, by hash, and loads nothing', () => {
    const html = dialogPageHtml();
    const csp = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)![1]!;
    const script = /<script>([\s\S]*)<\/script>/.exec(html)![1]!;
    const style = /<style>([\s\S]*)<\/style>/.exec(html)![1]!;
    const hash = (text: string) => createHash('sha256').update(text).digest('base64');
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain(`script-src 'sha256-${hash(script)}'`);
    expect(csp).toContain(`style-src 'sha256-${hash(style)}'`);
    expect(csp).not.toContain('unsafe');
    // The page has the fields the script reads and calls the bridge, never anything else.
    for (const id of ['url', 'key', 'status', 'check', 'save', 'cancel', 'protection']) expect(html).toContain(`id="${id}"`);
    expect(script).toMatch(/window\.takelineSettings/);
    expect(decodeURIComponent(dialogPageUrl().replace(/^data:text\/html;charset=utf-8,/, ''))).toBe(html);
  });

  it('opens in a locked-down window with the dialog preload', () => {
    const options = dialogWindowOptions('/app/out/preload/settings.cjs');
    expect(options.webPreferences).toMatchObject({
      preload: '/app/out/preload/settings.cjs',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
    });
  });
});
