import type { BrowserWindowConstructorOptions } from 'electron';

export interface WindowOptionsInput {
  /** Absolute path of the built preload script (out/preload/index.cjs). */
  preloadPath: string;
  title?: string;
  /** Icon for Linux/Windows windows; macOS takes the app bundle's icon. */
  icon?: string;
}

/**
 * Options for studio windows. The studio is web content served by the local service, so it gets the
 * locked-down renderer: isolated context, OS sandbox, no Node, same-origin policy on.
 */
export function createWindowOptions(input: WindowOptionsInput): BrowserWindowConstructorOptions {
  return {
    title: input.title ?? 'Takeline',
    width: 1440,
    height: 900,
    minWidth: 960,
    minHeight: 600,
    // Shown on 'ready-to-show' so the user never sees an empty white frame.
    show: false,
    backgroundColor: '#15171a',
    ...(input.icon ? { icon: input.icon } : {}),
    webPreferences: {
      preload: input.preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      spellcheck: true,
    },
  };
}
