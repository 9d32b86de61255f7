#!/usr/bin/env node
/* global process, console */
// `npm start`: the desktop app (electron-vite preview) when Electron can run on this machine; otherwise the
// service and studio for a browser, like `npm run serve`, with the reason said plainly.
//
//   npm start                 desktop app if possible, else browser
//   npm start -- --browser    always browser (also TAKELINE_BROWSER=1); other arguments go to the launched command
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';

// The decisions live in tested TypeScript modules (src/main/launcher); tsx lets this plain script load them.
register();
const { chooseLaunchMode, probeElectron } = await import('../src/main/launcher/electron-probe.ts');
const { newestModification, studioNeedsBuild } = await import('../src/main/launcher/studio-build.ts');

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const requireFromRoot = createRequire(join(root, 'package.json'));
const args = process.argv.slice(2);
const forceBrowser = args.includes('--browser') || process.env.TAKELINE_BROWSER === '1';
const passThrough = args.filter((arg) => arg !== '--browser');

/** A package's directory, found through its package.json so that nothing in it runs. */
function packageDir(name) {
  try {
    return dirname(requireFromRoot.resolve(`${name}/package.json`));
  } catch {
    return null;
  }
}

function readText(path) {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

function mtimeOrNull(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return null;
  }
}

/** Runs a node script with inherited stdio and resolves to its exit code. */
function runNode(scriptArgs, env = process.env) {
  return new Promise((resolvePromise) => {
    const child = spawn(process.execPath, scriptArgs, { cwd: root, env, stdio: 'inherit' });
    // Pass stop signals on (a terminal's Ctrl+C may deliver one twice; both children stop idempotently) and stay
    // alive until the child has finished stopping its jobs.
    const forward = (signal) => child.kill(signal);
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    child.on('exit', (code, signal) => {
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
      resolvePromise(code ?? (signal ? 1 : 0));
    });
    child.on('error', (error) => {
      console.error(`could not run ${scriptArgs.join(' ')}: ${error.message}`);
      resolvePromise(1);
    });
  });
}

const electronDir = packageDir('electron');
const probe = probeElectron({
  env: process.env,
  packageDir: electronDir,
  exists: existsSync,
  readText,
});
const launch = chooseLaunchMode(probe, { platform: process.platform, env: process.env, forceBrowser });

if (launch.mode === 'desktop') {
  // electron-vite builds main, preload and studio, then starts Electron; ELECTRON_EXEC_PATH pins the binary we found.
  const electronVite = join(packageDir('electron-vite') ?? '', 'bin/electron-vite.js');
  process.exit(
    await runNode([electronVite, 'preview', ...passThrough], {
      ...process.env,
      ELECTRON_EXEC_PATH: launch.binary,
    }),
  );
}

console.log(`${launch.reason}.`);
console.log(
  'Starting the Takeline service and studio for a browser instead (as `npm run serve`); open the sign-in link it prints.\n',
);

// The service serves the built studio from out/renderer: build it when it is missing or older than its sources.
const studioConfig = join(root, 'src/renderer/vite.config.ts');
if (existsSync(studioConfig)) {
  const newestSource = newestModification([join(root, 'src/renderer'), join(root, 'src/shared')]);
  if (studioNeedsBuild(mtimeOrNull(join(root, 'out/renderer/index.html')), newestSource)) {
    console.log('Building the studio…');
    const vite = join(packageDir('vite') ?? '', 'bin/vite.js');
    const code = await runNode([vite, 'build', '--config', studioConfig, '--logLevel', 'warn']);
    if (code !== 0)
      console.warn('The studio build failed; the service will serve whatever out/renderer holds.\n');
  }
} else {
  console.warn('No studio sources (src/renderer/vite.config.ts); the service will run without the studio.\n');
}

process.exit(await runNode(['--import', 'tsx', join(root, 'src/service/cli/serve.ts'), ...passThrough]));
