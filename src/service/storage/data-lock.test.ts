import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireDataLock, DataFolderInUseError } from './data-lock';

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'takeline-lock-'));
  file = path.join(dir, 'service.lock');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The pid of a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(child.stdout.toString());
}

describe('acquireDataLock', () => {
  it('writes our pid and removes the file on release', () => {
    const release = acquireDataLock(file, dir);
    expect(readFileSync(file, 'utf8').trim()).toBe(String(process.pid));
    release();
    expect(existsSync(file)).toBe(false);
  });

  it('refuses a folder locked by a live process, naming it and how to proceed', () => {
    const release = acquireDataLock(file, dir);
    const otherPid = process.pid + 1_000_000; // pretend to be another process asking
    expect(() => acquireDataLock(file, dir, otherPid)).toThrow(DataFolderInUseError);
    expect(() => acquireDataLock(file, dir, otherPid)).toThrow(
      new RegExp(`process ${process.pid}.*TAKELINE_DATA_DIR`),
    );
    release();
    acquireDataLock(file, dir, otherPid)();
  });

  it('takes over a lock whose process is gone', () => {
    const stale = deadPid();
    writeFileSync(file, `${stale}\n`);
    const release = acquireDataLock(file, dir);
    expect(readFileSync(file, 'utf8').trim()).toBe(String(process.pid));
    release();
  });

  it('takes over an empty lock file (a crash between create and write)', () => {
    writeFileSync(file, '');
    acquireDataLock(file, dir)();
    expect(existsSync(file)).toBe(false);
  });

  it('release leaves alone a lock another process has taken over since', () => {
    const release = acquireDataLock(file, dir);
    writeFileSync(file, '1\n');
    release();
    expect(readFileSync(file, 'utf8')).toBe('1\n');
  });
});
