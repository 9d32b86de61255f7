import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './free-port';

/** A throwaway PostgreSQL server on a loopback port, for tests and benchmarks; `stop` removes it whole. */
export interface ThrowawayPostgres {
  url: string;
  port: number;
  stop(): Promise<void>;
}

/** Debian's server binaries (postgresql-15 here); null when PostgreSQL is not installed. */
export function postgresBinDir(): string | null {
  const root = '/usr/lib/postgresql';
  if (!fs.existsSync(root)) return null;
  const versions = fs
    .readdirSync(root)
    .filter((v) => fs.existsSync(path.join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length ? path.join(root, versions[0]!, 'bin') : null;
}

/**
 * initdb refuses to run as root, so as root the cluster belongs to the `postgres` user (its folder outside
 * the test run's private temp folder, which that user cannot enter). Trust authentication on loopback and
 * fsync off: nothing here must survive the test.
 */
export async function startPostgres(): Promise<ThrowawayPostgres> {
  const bin = postgresBinDir();
  if (!bin) throw new Error('PostgreSQL is not installed (bash scripts/setup.sh installs Debian\'s postgresql)');
  const asRoot = process.getuid?.() === 0;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'takeline-pg-'));
  const run = (program: string, args: string[]) => {
    const command = asRoot ? 'runuser' : path.join(bin, program);
    const argv = asRoot ? ['-u', 'postgres', '--', path.join(bin, program), ...args] : args;
    const result = spawnSync(command, argv, { encoding: 'utf8', cwd: dir });
    if (result.status !== 0) throw new Error(`${program} failed: ${result.stderr || result.stdout}`);
  };
  if (asRoot) execFileSync('chown', ['postgres:postgres', dir]);
  const data = path.join(dir, 'data');
  run('initdb', ['-D', data, '-U', 'takeline', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
  const port = await freePort();
  run('pg_ctl', ['-D', data, '-w', '-l', path.join(dir, 'log'), '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off`, 'start']);
  return {
    url: `postgres://takeline@127.0.0.1:${port}/postgres`,
    port,
    stop: async () => {
      try {
        run('pg_ctl', ['-D', data, '-w', '-m', 'immediate', 'stop']);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
