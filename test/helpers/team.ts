import crypto from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { openPostgresPool } from '../../src/service/storage/sql/postgres-sql';
import { modelsDir, repoRoot } from './paths';
import { until } from './poll';
import type { ThrowawayPostgres } from './postgres';
import { tempDir } from './temp';

/** A `npm run worker` process of a team, with its output kept. */
export interface Worker {
  child: ChildProcess;
  output(): string;
  /** kill -9 and wait. */
  kill(): Promise<void>;
  /** SIGTERM and wait. */
  stop(): Promise<void>;
}

/** `cwd`: the source tree to run (default this repository; bench/team/readers-side-by-side.ts runs another beside it). */
export async function startWorker(env: Record<string, string>, cwd = repoRoot): Promise<Worker> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/service/cli/worker.ts'], { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker did not start:\n${out}`)), 120_000);
    child.stdout!.on('data', () => {
      if (out.includes('takeline worker ready')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.on('exit', () => reject(new Error(`worker exited:\n${out}`)));
  });
  return {
    child,
    output: () => out,
    kill: async () => {
      child.kill('SIGKILL');
      await exited;
    },
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * A fresh database on the throwaway server, and the environment of a team over it (one shared data folder), with
 * a full-access key every node accepts (a team's nodes keep no studio key: ServiceProcess.key is this one).
 */
export async function teamEnv(pg: ThrowawayPostgres, database: string): Promise<Record<string, string>> {
  const admin = openPostgresPool(pg.url, 1);
  await admin.query(`CREATE DATABASE ${database}`);
  await admin.end();
  return {
    TAKELINE_DATABASE_URL: pg.url.replace(/\/[^/]*$/, `/${database}`),
    TAKELINE_DATA_DIR: tempDir('takeline-team-'),
    TAKELINE_MODELS_DIR: modelsDir,
    TAKELINE_API_KEY: `tl_${crypto.randomBytes(24).toString('hex')}`,
  };
}

/** Rows of one query on a team's database. */
export async function teamQuery<T>(url: string, text: string, values: unknown[] = []): Promise<T[]> {
  const pool = openPostgresPool(url, 1);
  try {
    return (await pool.query(text, values)).rows as T[];
  } finally {
    await pool.end();
  }
}

/** Waits until none of a recording's jobs is queued or running (each job's writes to its rows are a new ETag). */
export async function sessionJobsDone(url: string, sessionId: string, ms: number): Promise<void> {
  const busy = () => teamQuery<{ n: number }>(url, "SELECT count(*) AS n FROM jobs WHERE session_id = $1 AND status IN ('queued', 'running')", [sessionId]);
  await until(busy, (rows) => Number(rows[0]!.n) === 0, ms);
}

/** The worker whose log says it started this job (attempt `attempt`), once one does. */
export async function workerRunning(workers: readonly Worker[], jobId: string, attempt = 1, ms = 120_000): Promise<Worker> {
  const pattern = new RegExp(`job ${jobId} \\(\\S+\\) started, attempt ${attempt}\\b`);
  for (const deadline = Date.now() + ms; Date.now() < deadline; ) {
    const found = workers.find((w) => pattern.test(w.output()));
    if (found) return found;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no worker started job ${jobId} attempt ${attempt}`);
}
