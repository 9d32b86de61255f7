import { resolve } from 'node:path';

export interface ServiceStartOptions {
  env: NodeJS.ProcessEnv;
  port: number;
  dataDir: string;
  log: (line: string) => void;
}

export interface ServiceOptionsInput {
  env: NodeJS.ProcessEnv;
  /** Electron's app.getPath('userData') for the app named Takeline. */
  userDataDir: string;
  /** The built studio beside the main bundle (out/renderer). */
  studioDir: string;
  log: (line: string) => void;
}

/**
 * How the desktop app starts the service. A free loopback port every time (nothing else needs to know it: the
 * window is handed the URL). The data folder is Electron's userData, which is also the service's own default, so
 * the app and `npm run serve` share projects and keys; TAKELINE_DATA_DIR still wins. The service finds the studio
 * relative to its sources, which does not hold inside the bundle, so the built location is passed explicitly.
 */
export function serviceStartOptions(input: ServiceOptionsInput): ServiceStartOptions {
  const { env } = input;
  return {
    env: { ...env, TAKELINE_STUDIO_DIR: env.TAKELINE_STUDIO_DIR || input.studioDir },
    port: 0,
    dataDir: env.TAKELINE_DATA_DIR ? resolve(env.TAKELINE_DATA_DIR) : input.userDataDir,
    log: input.log,
  };
}
