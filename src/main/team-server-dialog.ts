import { createHash } from 'node:crypto';
import type { BrowserWindowConstructorOptions } from 'electron';
import { z } from 'zod';
import {
  SettingsChannel,
  type CheckOutcome,
  type SettingsArgs,
  type SettingsChannelName,
  type SettingsFormState,
  type SettingsResult,
  type TeamServerForm,
} from '../shared/settings-ipc';
import { chooseTeam, loadSettings, saveSettings, type DesktopSettings } from './desktop-settings';
import { protectKey, revealKey, type SafeStorageLike } from './key-vault';
import { checkTeamServer, type Fetch } from './team-server-client';
import { checkServerUrl, isCleartextRemote } from './team-server-url';

/**
 * The "Team Server…" dialog: what it does (check an address and key against the server, save them) and the
 * small page it shows. The Electron window and its IPC are wired in index.ts; everything here runs without it.
 */

export interface DialogDeps {
  settingsFile: string;
  safe: SafeStorageLike;
  platform: NodeJS.Platform;
  fetch: Fetch;
  /** The service the running studio uses. */
  runningMode: 'embedded' | 'team';
  /** Restarts the app on the saved settings (after the dialog saved them). */
  restart(): void;
  log(line: string): void;
}

export interface DialogActions {
  current(): Promise<SettingsFormState>;
  check(form: TeamServerForm): Promise<CheckOutcome>;
  save(form: TeamServerForm): Promise<CheckOutcome>;
}

export function createDialogActions(deps: DialogDeps): DialogActions {
  const settings = (): DesktopSettings => loadSettings(deps.settingsFile).settings;
  const keyProtection = async (): Promise<SettingsFormState['keyProtection']> =>
    deps.platform !== 'linux' || deps.safe.getSelectedStorageBackend() !== 'basic_text'
      ? (await deps.safe.isAsyncEncryptionAvailable())
        ? 'os-keychain'
        : 'file-permissions'
      : 'file-permissions';

  /** The form's key, or the one saved for the same address when the form leaves it empty. */
  const keyFor = async (form: TeamServerForm, saved: DesktopSettings): Promise<string | CheckOutcome> => {
    if (form.key.trim() !== '') return form.key;
    const url = checkServerUrl(form.url);
    if (saved.team && url.ok && url.origin === saved.team.url) {
      try {
        return await revealKey(saved.team.key, deps.safe);
      } catch (error) {
        return { ok: false, field: 'key', message: `${(error as Error).message}: enter the key again.` };
      }
    }
    return { ok: false, field: 'key', message: 'Enter your API key for this server.' };
  };

  const run = async (form: TeamServerForm) => {
    const saved = settings();
    const key = await keyFor(form, saved);
    if (typeof key !== 'string') return { outcome: key, saved, check: null };
    const check = await checkTeamServer({ url: form.url, key }, deps.fetch);
    if (!check.ok) return { outcome: { ok: false, field: check.field, message: check.message } satisfies CheckOutcome, saved, check: null };
    const seen = `${check.projects} project${check.projects === 1 ? '' : 's'}`;
    const warning = isCleartextRemote(check.origin) ? ' Warning: plain http: sends your key unencrypted over the network; use https: if the server offers it.' : '';
    return { outcome: { ok: true, message: `The server accepted the key; it sees ${seen}.${warning}` } satisfies CheckOutcome, saved, check };
  };

  return {
    current: async () => {
      const saved = settings();
      return {
        mode: deps.runningMode,
        url: saved.team?.url ?? '',
        hasSavedKey: saved.team !== undefined,
        keyProtection: await keyProtection(),
      };
    },
    check: async (form) => (await run(form)).outcome,
    save: async (form) => {
      const { outcome, saved, check } = await run(form);
      if (!check) return outcome;
      const { stored, protection } = await protectKey(check.key, deps.safe, deps.platform);
      const { keptInvalidAs } = saveSettings(deps.settingsFile, chooseTeam(saved, { url: check.origin, key: stored }));
      if (keptInvalidAs) deps.log(`the settings file that could not be read was kept as ${keptInvalidAs}`);
      deps.log(`team server ${check.origin} saved (key protected by ${protection}); restarting`);
      deps.restart();
      return outcome;
    },
  };
}

/** Argument tuples the main process accepts from the dialog, checked before anything runs. */
const formSchema = z.strictObject({ url: z.string().max(2048), key: z.string().max(200) }) satisfies z.ZodType<TeamServerForm>;

export const settingsArgumentSchemas: { [C in SettingsChannelName]: z.ZodType<SettingsArgs<C>> } = {
  [SettingsChannel.current]: z.tuple([]),
  [SettingsChannel.check]: z.tuple([formSchema]),
  [SettingsChannel.save]: z.tuple([formSchema]),
  [SettingsChannel.close]: z.tuple([]),
};

export interface DialogInvokeEvent {
  sender: { id: number };
  senderFrame: { parent: unknown } | null;
}

export interface IpcMainLike {
  handle(channel: string, listener: (event: DialogInvokeEvent, ...args: unknown[]) => Promise<unknown>): void;
  removeHandler(channel: string): void;
}

export class DialogRejection extends Error {
  override name = 'DialogRejection';
}

/**
 * Registers the dialog's channels. Only the dialog window's own top-level frame may call them (its page is a
 * data: URL, which has no origin to compare, so the sender is named by its web contents); arguments are
 * checked against the schemas. Returns a function that unregisters them.
 */
export function registerDialogHandlers(
  ipcMain: IpcMainLike,
  actions: DialogActions & { close(): void },
  dialogContentsId: () => number | null,
): () => void {
  const handlers: { [C in SettingsChannelName]: (...args: SettingsArgs<C>) => Promise<SettingsResult<C>> } = {
    [SettingsChannel.current]: () => actions.current(),
    [SettingsChannel.check]: (form) => actions.check(form),
    [SettingsChannel.save]: (form) => actions.save(form),
    [SettingsChannel.close]: async () => actions.close(),
  };
  const channels = Object.keys(handlers) as SettingsChannelName[];
  for (const channel of channels) {
    ipcMain.handle(channel, async (event, ...rawArgs) => {
      if (event.senderFrame?.parent !== null || event.sender.id !== dialogContentsId()) {
        throw new DialogRejection(`${channel}: the sender is not the team server dialog`);
      }
      const parsed = settingsArgumentSchemas[channel].safeParse(rawArgs);
      if (!parsed.success) throw new DialogRejection(`invalid arguments for ${channel}`);
      return (handlers[channel] as (...args: unknown[]) => Promise<unknown>)(...parsed.data);
    });
  }
  return () => channels.forEach((channel) => ipcMain.removeHandler(channel));
}

export function dialogWindowOptions(preloadPath: string): BrowserWindowConstructorOptions {
  return {
    title: 'Team Server',
    // The page's size (test/e2e/team-server-dialog.e2e.test.ts renders it at this viewport), title bar aside.
    width: 520,
    height: 420,
    useContentSize: true,
    resizable: false,
    minimizable: false,
    maximizable: false,
    fullscreenable: false,
    show: false,
    backgroundColor: '#15171a',
    webPreferences: {
      preload: preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      webviewTag: false,
      navigateOnDragDrop: false,
      spellcheck: false,
    },
  };
}

const DIALOG_SCRIPT = `
const api = window.takelineSettings;
const $ = (id) => document.getElementById(id);
const form = () => ({ url: $('url').value, key: $('key').value });
function show(outcome) {
  const status = $('status');
  status.textContent = outcome.message;
  status.className = outcome.ok ? 'ok' : 'bad';
  if (!outcome.ok) $(outcome.field).focus();
}
async function busy(work) {
  for (const b of document.querySelectorAll('button')) b.disabled = true;
  $('status').textContent = 'Checking with the server…';
  $('status').className = '';
  try { show(await work()); } catch (e) { show({ ok: false, field: 'url', message: String(e && e.message || e) }); }
  finally { for (const b of document.querySelectorAll('button')) b.disabled = false; }
}
api.current().then((state) => {
  $('url').value = state.url;
  if (state.hasSavedKey) $('key').placeholder = 'leave empty to keep the saved key';
  $('protection').textContent = state.keyProtection === 'os-keychain'
    ? 'The key is kept encrypted by the system keychain.'
    : 'No system keychain is available: the key is kept in a settings file only you can read.';
  $('url').focus();
});
$('check').addEventListener('click', () => busy(() => api.check(form())));
$('form').addEventListener('submit', (event) => { event.preventDefault(); busy(() => api.save(form())); });
$('cancel').addEventListener('click', () => api.close());
document.addEventListener('keydown', (event) => { if (event.key === 'Escape') api.close(); });
`;

const DIALOG_STYLE = `
body { font: 14px system-ui, sans-serif; background: #15171a; color: #e8e8e8; margin: 24px; }
h1 { font-size: 17px; margin: 0 0 8px; }
p { color: #aab; margin: 0 0 16px; line-height: 1.4; }
label { display: block; margin: 12px 0 4px; }
input { width: 100%; box-sizing: border-box; padding: 6px 8px; background: #22252a; color: inherit; border: 1px solid #444; border-radius: 4px; }
.buttons { display: flex; gap: 8px; justify-content: flex-end; margin-top: 20px; }
button { padding: 6px 14px; }
#status { min-height: 2.8em; margin-top: 12px; }
#status.ok { color: #7c7; } #status.bad { color: #f88; }
small { color: #889; }
`;

const sha256 = (text: string) => createHash('sha256').update(text).digest('base64');

/**
 * The dialog's page: static (the values come through the bridge, never spliced into the HTML), with a
 * content security policy that lets only its own script and style run and load nothing from anywhere.
 */
export function dialogPageHtml(): string {
  const csp = `default-src 'none'; script-src 'sha256-${sha256(DIALOG_SCRIPT)}'; style-src 'sha256-${sha256(DIALOG_STYLE)}'; form-action 'none'; base-uri 'none'`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<title>Team Server</title><style>${DIALOG_STYLE}</style></head>
<body>
<h1>Use a team server</h1>
<p>The studio opens on the team server instead of this computer’s embedded service. Takeline checks the address and key with the server, saves them, and restarts.</p>
<form id="form" autocomplete="off">
<label for="url">Server address</label>
<input id="url" type="url" placeholder="https://takeline.example.com" required spellcheck="false">
<label for="key">API key</label>
<input id="key" type="password" placeholder="tl_…" spellcheck="false">
<small id="protection"></small>
<div id="status" role="status" aria-live="polite"></div>
<div class="buttons"><button type="button" id="cancel">Cancel</button><button type="button" id="check">Check</button><button type="submit" id="save">Save and Restart</button></div>
</form>
<script>${DIALOG_SCRIPT}</script>
</body></html>`;
}

export function dialogPageUrl(): string {
  return `data:text/html;charset=utf-8,${encodeURIComponent(dialogPageHtml())}`;
}
