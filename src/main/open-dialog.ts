import type { OpenDialogOptions } from 'electron';
import type { OpenFileOptions } from '../shared/ipc';

/** Translates the studio's open-file request into Electron's dialog options (files only, never folders). */
export function toOpenDialogOptions(options: OpenFileOptions): OpenDialogOptions {
  return {
    properties: options.multiple ? ['openFile', 'multiSelections'] : ['openFile'],
    ...(options.title !== undefined ? { title: options.title } : {}),
    ...(options.filters !== undefined ? { filters: options.filters } : {}),
    ...(options.defaultPath !== undefined ? { defaultPath: options.defaultPath } : {}),
  };
}

/** Electron reports a cancelled dialog as canceled/empty; the studio gets null for that. */
export function toChosenPaths(result: { canceled: boolean; filePaths: string[] }): string[] | null {
  return result.canceled || result.filePaths.length === 0 ? null : result.filePaths;
}
