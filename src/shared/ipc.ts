/**
 * The typed IPC contract between the Electron main process, the preload script and the studio, declared once:
 * the preload forwards calls by these channels, the main process checks arguments against schemas that must
 * match these types (src/main/ipc-schemas.ts) before acting, and the studio sees `window.takeline` (absent in
 * a plain browser). Types only, so the sandboxed preload bundle stays tiny.
 */

export const IpcChannel = {
  apiKey: 'takeline:api-key',
  openFile: 'takeline:open-file',
  revealInFolder: 'takeline:reveal-in-folder',
} as const;

export type IpcChannelName = (typeof IpcChannel)[keyof typeof IpcChannel];

export interface FileFilter {
  name: string;
  /** Extensions without the dot ('wav'), or '*' for all files, as Electron's dialog expects. */
  extensions: string[];
}

export interface OpenFileOptions {
  title?: string;
  filters?: FileFilter[];
  /** Allow choosing several files. */
  multiple?: boolean;
  defaultPath?: string;
}

/** What each channel takes and resolves to. */
export interface IpcContract {
  [IpcChannel.apiKey]: { args: []; result: string };
  [IpcChannel.openFile]: { args: [] | [options: OpenFileOptions]; result: string[] | null };
  [IpcChannel.revealInFolder]: { args: [path: string]; result: void };
}

export type IpcArgs<C extends IpcChannelName> = IpcContract[C]['args'];
export type IpcResult<C extends IpcChannelName> = IpcContract[C]['result'];

/** The API the preload exposes to the studio as `window.takeline`. */
export interface TakelineDesktopApi {
  /** The local service's API key (for showing it or for building curl examples). */
  apiKey(): Promise<string>;
  /**
   * Native open-file dialog; resolves to the chosen absolute paths, or null when cancelled. The sandboxed
   * studio cannot read files by path: for uploads use <input type="file"> or drag and drop.
   */
  openFile(options?: OpenFileOptions): Promise<string[] | null>;
  /** Shows the file (absolute path) in the system file manager. */
  revealInFolder(path: string): Promise<void>;
}

/** Name under which the preload exposes the API on `window`. */
export const DESKTOP_API_KEY = 'takeline';

declare global {
  interface Window {
    /** Present only inside the desktop app; the studio must also work in a plain browser. */
    takeline?: TakelineDesktopApi;
  }
}
