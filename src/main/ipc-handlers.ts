import { isAbsolute } from 'node:path';
import {
  IpcChannel,
  type IpcArgs,
  type IpcChannelName,
  type IpcResult,
  type OpenFileOptions,
} from '../shared/ipc';
import { ipcArgumentSchemas } from './ipc-schemas';
import { isTrustedUrl } from './navigation-policy';

/** The parts of an invoke event we look at: which frame asked, and whether it is a top-level frame. */
export interface InvokeEventLike {
  senderFrame: { url: string; parent: unknown } | null;
}

export interface IpcMainLike {
  handle(channel: string, listener: (event: InvokeEventLike, ...args: unknown[]) => Promise<unknown>): void;
  removeHandler(channel: string): void;
}

export interface DesktopServices {
  /** Origin of the local service: the only web content allowed to call the desktop API. */
  trustedOrigin: string;
  apiKey(): string;
  /** Native open dialog; resolves to chosen paths or null when cancelled. */
  showOpenDialog(options: OpenFileOptions): Promise<string[] | null>;
  showItemInFolder(path: string): void;
}

export class IpcRejection extends Error {
  override name = 'IpcRejection';
}

type Handlers = { [C in IpcChannelName]: (...args: IpcArgs<C>) => Promise<IpcResult<C>> };

export function createHandlers(services: DesktopServices): Handlers {
  return {
    [IpcChannel.apiKey]: async () => services.apiKey(),
    [IpcChannel.openFile]: async (options?: OpenFileOptions) => services.showOpenDialog(options ?? {}),
    [IpcChannel.revealInFolder]: async (path: string) => {
      if (!isAbsolute(path)) throw new IpcRejection('revealInFolder needs an absolute path');
      services.showItemInFolder(path);
    },
  };
}

/**
 * Registers every channel of the contract on ipcMain. Each call is checked before it runs: the sender must be a
 * top-level frame showing the service's origin (not a stray page or an embedded frame), and the arguments must
 * match the channel's schema. Returns a function that unregisters them.
 */
export function registerIpcHandlers(ipcMain: IpcMainLike, services: DesktopServices): () => void {
  const handlers = createHandlers(services);
  const channels = Object.keys(handlers) as IpcChannelName[];
  for (const channel of channels) {
    ipcMain.handle(channel, async (event, ...rawArgs) => {
      assertTrustedSender(event, services.trustedOrigin, channel);
      const parsed = ipcArgumentSchemas[channel].safeParse(rawArgs);
      if (!parsed.success) {
        throw new IpcRejection(
          `invalid arguments for ${channel}: ${parsed.error.issues.map((i) => i.message).join('; ')}`,
        );
      }
      const handler = handlers[channel] as (...args: unknown[]) => Promise<unknown>;
      return handler(...parsed.data);
    });
  }
  return () => channels.forEach((channel) => ipcMain.removeHandler(channel));
}

export function assertTrustedSender(event: InvokeEventLike, trustedOrigin: string, channel: string): void {
  const frame = event.senderFrame;
  if (!frame || frame.parent !== null || !isTrustedUrl(frame.url, trustedOrigin)) {
    throw new IpcRejection(`${channel}: sender ${frame?.url ?? '(gone)'} is not the studio`);
  }
}
