/**
 * The typed IPC contract of the desktop app's "Team Server…" dialog: a small local page (not the studio) with
 * its own preload, which sees `window.takelineSettings` and nothing else. Types and channel names only, so
 * the sandboxed preload bundle stays tiny.
 */

export const SettingsChannel = {
  current: 'takeline-settings:current',
  check: 'takeline-settings:check',
  save: 'takeline-settings:save',
  close: 'takeline-settings:close',
} as const;

export type SettingsChannelName = (typeof SettingsChannel)[keyof typeof SettingsChannel];

/** What the user typed. An empty key means "the key saved for this server". */
export interface TeamServerForm {
  url: string;
  key: string;
}

export interface SettingsFormState {
  /** The service the running studio uses. */
  mode: 'embedded' | 'team';
  /** The saved team server's address ('' when there is none). */
  url: string;
  /** Whether a key is saved for that address (the form may then leave the key empty). */
  hasSavedKey: boolean;
  /** How a saved key is protected: by the OS keychain, or only by the settings file's permissions. */
  keyProtection: 'os-keychain' | 'file-permissions';
}

export type CheckOutcome = { ok: true; message: string } | { ok: false; field: 'url' | 'key'; message: string };

export interface SettingsContract {
  [SettingsChannel.current]: { args: []; result: SettingsFormState };
  /** Checks the address and key against the server; saves nothing. */
  [SettingsChannel.check]: { args: [form: TeamServerForm]; result: CheckOutcome };
  /** Checks, then saves and restarts the app on the team server; resolves only when the check fails. */
  [SettingsChannel.save]: { args: [form: TeamServerForm]; result: CheckOutcome };
  [SettingsChannel.close]: { args: []; result: void };
}

export type SettingsArgs<C extends SettingsChannelName> = SettingsContract[C]['args'];
export type SettingsResult<C extends SettingsChannelName> = SettingsContract[C]['result'];

export interface TakelineSettingsApi {
  current(): Promise<SettingsFormState>;
  check(form: TeamServerForm): Promise<CheckOutcome>;
  save(form: TeamServerForm): Promise<CheckOutcome>;
  close(): Promise<void>;
}

export const SETTINGS_API_KEY = 'takelineSettings';

declare global {
  interface Window {
    /** Present only in the desktop app's team server dialog. */
    takelineSettings?: TakelineSettingsApi;
  }
}
