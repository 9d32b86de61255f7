/**
 * Starts the real service with `npm run serve` in a temporary data folder on a free port and reads the
 * address and one-time sign-in link it prints. Used by the studio's end-to-end test and benchmark.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { repoRoot, sharedDir as sharedPath } from '../helpers/paths';

export { repoRoot };

export function sharedDir(): string {
  return sharedPath;
}

export interface RunningService {
  url: string;
  signInUrl: string;
  dataDir: string;
  output: () => string;
  isRunning(): boolean;
  stop(): Promise<void>;
}

/** A child killed by a signal has a signalCode and no exitCode. */
const exited = (child: ChildProcess): boolean => child.exitCode !== null || child.signalCode !== null;

const LISTENING = /takeline listening on (http:\/\/127\.0\.0\.1:\d+)/;
const SIGN_IN = /(http:\/\/\S+\/auth\/signin\?token=\S+)/;

export async function startService(
  options: { timeoutMs?: number; env?: Record<string, string> } = {},
): Promise<RunningService> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'takeline-e2e-data-'));
  const child: ChildProcess = spawn('npm', ['run', '--silent', 'serve'], {
    cwd: repoRoot,
    env: { ...process.env, TAKELINE_DATA_DIR: dataDir, TAKELINE_PORT: '0', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Own process group, so stopping reaches node behind npm.
    detached: true,
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));

  const stop = async () => {
    if (exited(child) || child.pid === undefined) return;
    const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      /* already gone */
    }
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }, 5000);
    await gone;
    clearTimeout(timer);
    fs.rmSync(dataDir, { recursive: true, force: true });
  };

  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  while (Date.now() < deadline) {
    const url = LISTENING.exec(out)?.[1];
    const signInUrl = SIGN_IN.exec(out)?.[1];
    if (url && signInUrl)
      return { url, signInUrl, dataDir, output: () => out, isRunning: () => !exited(child), stop };
    if (exited(child)) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  await stop();
  throw new Error(`the service did not start:\n${out}`);
}
