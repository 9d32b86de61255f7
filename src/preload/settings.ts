import { contextBridge, ipcRenderer } from 'electron';
import { SETTINGS_API_KEY } from '../shared/settings-ipc';
import { createSettingsApi, type SettingsInvoke } from './settings-bridge';

// The team server dialog's preload (sandboxed, like the studio's): it exposes the dialog's four calls only.
const invoke = ((channel: string, ...args: unknown[]) => ipcRenderer.invoke(channel, ...args)) as SettingsInvoke;

contextBridge.exposeInMainWorld(SETTINGS_API_KEY, createSettingsApi(invoke));
