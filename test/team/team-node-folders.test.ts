import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/paths';
import { postgresPerFile } from '../helpers/postgres-per-file';
import { startWorker, teamEnv } from '../helpers/team';
import { tempDir } from '../helpers/temp';

const pg = postgresPerFile();

/** The id of a process that has run and ended (so no process of this host has it now, barring reuse). */
function departedPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

describe("a team node's data folder", () => {
  it('`npm run keys` with only TAKELINE_DATABASE_URL set makes no data folder', { timeout: 120_000 }, async () => {
    const env = await teamEnv(pg(), 'team_keys_folder');
    // Nothing but the database: the data folder would be the desktop's default under this home.
    const home = tempDir('takeline-admin-home-');
    const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('TAKELINE_') && name !== 'XDG_CONFIG_HOME'));
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'src/service/cli/keys.ts', 'create', 'admin'], {
      cwd: repoRoot,
      env: { ...clean, HOME: home, TAKELINE_DATABASE_URL: env.TAKELINE_DATABASE_URL! },
      encoding: 'utf8',
    });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^tl_\w+\n$/);
    expect(fs.readdirSync(home)).toEqual([]);
  });

  it('a worker makes only its own uploads and scratch folders, and removes those of this host\'s nodes that are gone, leaving living and other hosts\' alone', { timeout: 300_000 }, async () => {
    const env = await teamEnv(pg(), 'team_node_folders');
    const dataDir = env.TAKELINE_DATA_DIR!;
    const host = os.hostname();
    const gone = `${host}-${departedPid()}`;
    const living = `${host}-${process.pid}`;
    const elsewhere = 'another-machine-4242';
    for (const parent of ['uploads', 'scratch']) {
      for (const name of [gone, living, elsewhere]) {
        fs.mkdirSync(path.join(dataDir, parent, name), { recursive: true });
        fs.writeFileSync(path.join(dataDir, parent, name, 'left-behind.part'), 'x');
      }
    }
    const worker = await startWorker(env);
    try {
      const own = `${host}-${worker.child.pid}`;
      expect(fs.readdirSync(path.join(dataDir, 'uploads')).sort()).toEqual([own, living, elsewhere].sort());
      expect(fs.readdirSync(path.join(dataDir, 'scratch')).sort()).toEqual([own, living, elsewhere].sort());
      expect(worker.output()).toContain(`removed ${path.join(dataDir, 'uploads', gone)}: its node is gone`);
      // No recordings/ or secrets/: a worker's records and keys are in the database, its files on the storage.
      expect(fs.existsSync(path.join(dataDir, 'recordings'))).toBe(false);
      expect(fs.existsSync(path.join(dataDir, 'secrets'))).toBe(false);
    } finally {
      await worker.stop();
    }
  });
});
