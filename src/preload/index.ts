import { contextBridge, ipcRenderer } from 'electron';
import { DESKTOP_API_KEY } from '../shared/ipc';
import { createDesktopApi, type Invoke } from './bridge';

// Sandboxed preload: only `electron` is available at runtime, so everything else is bundled (see
// electron.vite.config.ts). The cast is the single place where ipcRenderer's untyped invoke meets the contract.
const invoke = ((channel: string, ...args: unknown[]) => ipcRenderer.invoke(channel, ...args)) as Invoke;

contextBridge.exposeInMainWorld(DESKTOP_API_KEY, createDesktopApi(invoke));
