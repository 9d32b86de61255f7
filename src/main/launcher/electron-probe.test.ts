import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chooseLaunchMode, hasDisplay, probeElectron, type ElectronProbeInput } from './electron-probe';

const PKG = '/repo/node_modules/electron';

function input(files: Record<string, string>, env: NodeJS.ProcessEnv = {}, packageDir: string | null = PKG) {
  return {
    env,
    packageDir,
    exists: (path: string) => path in files,
    readText: (path: string) => files[path] ?? null,
  } satisfies ElectronProbeInput;
}

describe('probeElectron', () => {
  it('finds the downloaded binary through path.txt', () => {
    const probe = probeElectron(
      input({ [join(PKG, 'path.txt')]: 'electron', [join(PKG, 'dist/electron')]: '' }),
    );
    expect(probe).toEqual({ available: true, binary: join(PKG, 'dist/electron') });
  });

  it('reports a package whose binary was never downloaded (the state on this machine)', () => {
    const probe = probeElectron(input({}));
    expect(probe.available).toBe(false);
    expect(!probe.available && probe.reason).toContain('never downloaded');
  });

  it('reports a path.txt whose binary is gone', () => {
    const probe = probeElectron(input({ [join(PKG, 'path.txt')]: 'Electron.app/Contents/MacOS/Electron' }));
    expect(!probe.available && probe.reason).toContain(
      join(PKG, 'dist/Electron.app/Contents/MacOS/Electron'),
    );
  });

  it('honours the overrides used by electron-vite and the electron package', () => {
    expect(
      probeElectron(input({ '/opt/e/electron': '' }, { ELECTRON_EXEC_PATH: '/opt/e/electron' })),
    ).toEqual({
      available: true,
      binary: '/opt/e/electron',
    });
    expect(probeElectron(input({}, { ELECTRON_EXEC_PATH: '/opt/e/electron' })).available).toBe(false);
    const overridden = input(
      { [join(PKG, 'path.txt')]: 'electron\n', '/opt/dist/electron': '' },
      { ELECTRON_OVERRIDE_DIST_PATH: '/opt/dist' },
    );
    expect(probeElectron(overridden)).toEqual({ available: true, binary: '/opt/dist/electron' });
  });

  it('reports a missing electron package', () => {
    expect(probeElectron(input({}, {}, null))).toEqual({
      available: false,
      reason: 'the electron package is not installed',
    });
  });
});

describe('chooseLaunchMode', () => {
  const found = { available: true as const, binary: '/e' };

  it('runs the desktop app when Electron and a display are there', () => {
    expect(
      chooseLaunchMode(found, { platform: 'linux', env: { DISPLAY: ':0' }, forceBrowser: false }),
    ).toEqual({
      mode: 'desktop',
      binary: '/e',
    });
    expect(chooseLaunchMode(found, { platform: 'darwin', env: {}, forceBrowser: false }).mode).toBe(
      'desktop',
    );
  });

  it('falls back to the browser, saying why', () => {
    const missing = { available: false as const, reason: 'no binary' };
    expect(
      chooseLaunchMode(missing, { platform: 'linux', env: { DISPLAY: ':0' }, forceBrowser: false }),
    ).toEqual({
      mode: 'browser',
      reason: 'Electron is not installed on this machine: no binary',
    });
    const headless = chooseLaunchMode(found, { platform: 'linux', env: {}, forceBrowser: false });
    expect(headless.mode === 'browser' && headless.reason).toContain('no display');
    expect(chooseLaunchMode(found, { platform: 'win32', env: {}, forceBrowser: true }).mode).toBe('browser');
  });

  it('knows which platforms need a display server', () => {
    expect(hasDisplay('linux', { WAYLAND_DISPLAY: 'wayland-0' })).toBe(true);
    expect(hasDisplay('freebsd', {})).toBe(false);
    expect(hasDisplay('win32', {})).toBe(true);
  });
});
