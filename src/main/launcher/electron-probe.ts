import { join } from 'node:path';

/**
 * Finds Electron's binary without running the `electron` package: its index.js downloads the binary on first
 * use (through @electron/get), which hangs on a machine without access to GitHub. So we read what its installer
 * leaves behind instead — node_modules/electron/path.txt naming the executable inside dist/ — and honour the same
 * overrides electron-vite and the package do (ELECTRON_EXEC_PATH, ELECTRON_OVERRIDE_DIST_PATH).
 */
export interface ElectronProbeInput {
  env: NodeJS.ProcessEnv;
  /** Directory of the installed `electron` package, or null when the package itself is not installed. */
  packageDir: string | null;
  exists(path: string): boolean;
  /** File contents, or null when it cannot be read. */
  readText(path: string): string | null;
}

export type ElectronProbe = { available: true; binary: string } | { available: false; reason: string };

export function probeElectron(input: ElectronProbeInput): ElectronProbe {
  const { env, packageDir } = input;
  if (env.ELECTRON_EXEC_PATH) {
    return input.exists(env.ELECTRON_EXEC_PATH)
      ? { available: true, binary: env.ELECTRON_EXEC_PATH }
      : {
          available: false,
          reason: `ELECTRON_EXEC_PATH points to ${env.ELECTRON_EXEC_PATH}, which does not exist`,
        };
  }
  if (!packageDir) return { available: false, reason: 'the electron package is not installed' };
  const relative = input.readText(join(packageDir, 'path.txt'))?.trim();
  if (!relative) {
    return {
      available: false,
      reason: `its binary was never downloaded (no ${join(packageDir, 'path.txt')})`,
    };
  }
  const binary = join(env.ELECTRON_OVERRIDE_DIST_PATH || join(packageDir, 'dist'), relative);
  return input.exists(binary)
    ? { available: true, binary }
    : { available: false, reason: `its binary is missing (expected ${binary})` };
}

/** Whether a window can be shown at all: X11/Wayland sessions need a display; macOS and Windows always have one. */
export function hasDisplay(platform: NodeJS.Platform, env: NodeJS.ProcessEnv): boolean {
  if (platform === 'darwin' || platform === 'win32') return true;
  return Boolean(env.DISPLAY || env.WAYLAND_DISPLAY);
}

export type LaunchMode = { mode: 'desktop'; binary: string } | { mode: 'browser'; reason: string };

export function chooseLaunchMode(
  probe: ElectronProbe,
  options: { platform: NodeJS.Platform; env: NodeJS.ProcessEnv; forceBrowser: boolean },
): LaunchMode {
  if (options.forceBrowser) return { mode: 'browser', reason: 'browser mode was requested' };
  if (!probe.available)
    return { mode: 'browser', reason: `Electron is not installed on this machine: ${probe.reason}` };
  if (!hasDisplay(options.platform, options.env)) {
    return {
      mode: 'browser',
      reason: 'Electron is installed but there is no display (DISPLAY/WAYLAND_DISPLAY unset)',
    };
  }
  return { mode: 'desktop', binary: probe.binary };
}
