import {
  IpcChannel,
  type IpcArgs,
  type IpcChannelName,
  type IpcResult,
  type TakelineDesktopApi,
} from '../shared/ipc';

/** The one thing the bridge needs from ipcRenderer, typed by the shared contract. */
export type Invoke = <C extends IpcChannelName>(channel: C, ...args: IpcArgs<C>) => Promise<IpcResult<C>>;

/**
 * Builds `window.takeline` from an invoke function. Each method forwards a fixed channel and nothing else,
 * so the page never gets a general-purpose ipcRenderer.
 */
export function createDesktopApi(invoke: Invoke): TakelineDesktopApi {
  return {
    apiKey: () => invoke(IpcChannel.apiKey),
    openFile: (options) =>
      options === undefined ? invoke(IpcChannel.openFile) : invoke(IpcChannel.openFile, options),
    revealInFolder: (path) => invoke(IpcChannel.revealInFolder, path),
  };
}
