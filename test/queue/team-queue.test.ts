import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Pool } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobRunner, type JobHandler } from '../../src/service/jobs/job-runner';
import { QueueWorker } from '../../src/service/queue/queue-worker';

/** A team's API node (it queues and follows) or its worker (it runs what pg-boss delivers). */
type RunnerRole = 'api' | 'worker';
import { PgBossQueue, QUEUE } from '../../src/service/queue/pg-boss-queue';
import { awaitingWorker } from '../../src/service/queue/awaiting-worker';
import { markJobsAwaitingWorker } from '../../src/service/queue/hand-over-watch';
import { WAITING_FOR_A_WORKER_STAGE } from '../../src/service/jobs/job-runner';
import { SqlJobStore } from '../../src/service/storage/job-store';
import { migratePostgres } from '../../src/service/storage/postgres/migrate';
import { openPostgresPool, PostgresSql } from '../../src/service/storage/sql/postgres-sql';
import { startPostgres, type ThrowawayPostgres } from '../helpers/postgres';

/** One team process's view of the queue: its pool, pg-boss and runner (an API node or a worker). */
interface Node {
  sql: PostgresSql;
  runner: JobRunner;
  queue: PgBossQueue;
  close(): Promise<void>;
}

const here = path.dirname(fileURLToPath(import.meta.url));
let pg: ThrowawayPostgres;
let databases = 0;

beforeAll(async () => {
  pg = await startPostgres();
}, 60_000);

afterAll(async () => {
  await pg?.stop();
});

/** A fresh, migrated database for one test, and a way to start nodes on it. */
async function team(): Promise<{ url: string; node(role: RunnerRole, handler?: JobHandler): Promise<Node>; stop(): Promise<void> }> {
  const name = `team_${++databases}`;
  const admin = openPostgresPool(pg.url, 1);
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = pg.url.replace(/\/[^/]*$/, `/${name}`);
  const setup = openPostgresPool(url, 1);
  await migratePostgres(setup);
  await setup.query("INSERT INTO projects (id, key, name, created_at) VALUES ('p', 'p', 'P', '2026-01-01T00:00:00Z')");
  await setup.query(
    "INSERT INTO sessions (id, project_id, file_name, stored_name, duration, format_json, language, created_at, status) VALUES ('s', 'p', 'a.wav', 'original.wav', 60, '{}', 'en', '2026-01-01T00:00:00Z', 'queued')",
  );
  await setup.end();
  const nodes: Node[] = [];
  return {
    url,
    async node(role, handler) {
      const pool: Pool = openPostgresPool(url, 4);
      const sql = new PostgresSql(pool);
      const queue = await PgBossQueue.open(url, { heartbeatSeconds: 10, superviseSeconds: 1 });
      const delivered = role === 'worker' ? new QueueWorker(100) : null;
      const runner = new JobRunner(new SqlJobStore(sql, queue.dispatch), { worker: delivered, pollMs: 100 });
      if (handler) runner.register('work', handler);
      await runner.start();
      if (delivered) await queue.work((id) => delivered.runDelivered(id));
      let closed = false;
      const node: Node = {
        sql,
        runner,
        queue,
        async close() {
          if (closed) return;
          closed = true;
          await runner.stop();
          await queue.stop();
          await pool.end();
        },
      };
      nodes.push(node);
      return node;
    },
    async stop() {
      for (const node of nodes) await node.close().catch(() => {});
    },
  };
}

describe('team queue (pg-boss on PostgreSQL)', () => {
  it('delivers a job queued in a committed transaction to exactly one of two workers, and none from a rolled-back one', async () => {
    const t = await team();
    try {
      const ran: string[] = [];
      const handler = (worker: string): JobHandler => async ({ job }) => {
        ran.push(`${worker}:${String(job.payload.name)}`);
      };
      const api = await t.node('api');
      await t.node('worker', handler('w1'));
      await t.node('worker', handler('w2'));
      await expect(
        api.sql.transaction(async (tx) => {
          await api.runner.enqueue('work', 's', { name: 'rolled back' }, new SqlJobStore(tx, api.queue.dispatch));
          throw new Error('refused');
        }),
      ).rejects.toThrow('refused');
      const id = await api.sql.transaction((tx) => api.runner.enqueue('work', 's', { name: 'committed' }, new SqlJobStore(tx, api.queue.dispatch)));
      const more = await Promise.all([1, 2, 3, 4].map((n) => api.runner.enqueue('work', 's', { name: `n${n}` })));
      // The API node learns the outcome from the record, written by another process.
      expect(await api.runner.settled(id, 20_000)).toMatchObject({ id, status: 'complete', attempts: 1 });
      for (const other of more) expect(await api.runner.settled(other, 20_000)).toMatchObject({ status: 'complete', attempts: 1 });
      const names = ran.map((r) => r.split(':')[1]).sort();
      expect(names).toEqual(['committed', 'n1', 'n2', 'n3', 'n4']);
      expect(await api.sql.get<{ n: number }>('SELECT count(*) AS n FROM jobs', [])).toEqual({ n: 5 });
    } finally {
      await t.stop();
    }
  }, 60_000);

  it('hands the job of a worker killed with kill -9 to another, which resumes it as an interruption', async () => {
    const t = await team();
    const doomed = spawn(process.execPath, ['--import', 'tsx', path.join(here, 'fixtures', 'stuck-worker.ts'), t.url], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const api = await t.node('api');
      let out = '';
      doomed.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      await expect.poll(() => out, { timeout: 30_000 }).toContain('ready');
      const id = await api.runner.enqueue('work', 's', { name: 'long' });
      await expect.poll(() => out, { timeout: 20_000 }).toContain(`started ${id}`);
      // What kill -9 leaves: the record says running, pg-boss holds the job active, nobody beats for it.
      doomed.kill('SIGKILL');
      const killedAt = Date.now();
      const started: number[] = [];
      await t.node('worker', async ({ job }) => {
        started.push(job.attempts);
      });
      expect(await api.runner.settled(id, 60_000)).toMatchObject({ status: 'complete', attempts: 2 });
      const waited = Date.now() - killedAt;
      expect(started).toEqual([2]);
      // Heartbeats of 10 s with a 1 s supervisor: the other worker starts it after the heartbeats ran out.
      expect(waited).toBeGreaterThanOrEqual(9_000);
      expect(waited).toBeLessThan(40_000);
      expect(await api.sql.get('SELECT stalled_interruptions FROM jobs WHERE id = ?', [id])).toEqual({ stalled_interruptions: 1 });
    } finally {
      doomed.kill('SIGKILL');
      await t.stop();
    }
  }, 120_000);

  it("stops a session's running job on its worker when an API node cancels the session", async () => {
    const t = await team();
    try {
      const api = await t.node('api');
      let running = false;
      await t.node('worker', async ({ signal }) => {
        running = true;
        await new Promise<void>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error)));
      });
      const id = await api.runner.enqueue('work', 's', {});
      const queued = await api.runner.enqueue('work', 's', {});
      await expect.poll(() => running, { timeout: 20_000 }).toBe(true);
      await api.runner.cancelSession('s');
      // cancelSession returned once the worker recorded that it stopped.
      const row = await api.sql.get<{ status: string; finished_at: string | null }>('SELECT status, finished_at FROM jobs WHERE id = ?', [id]);
      expect(row).toMatchObject({ status: 'cancelled' });
      expect(row!.finished_at).not.toBeNull();
      expect(await api.runner.get(queued)).toMatchObject({ status: 'cancelled' });
    } finally {
      await t.stop();
    }
  }, 60_000);

  it("marks a killed worker's job waiting with one query per pass, once, and never a job a live worker holds", async () => {
    const t = await team();
    const doomed = spawn(process.execPath, ['--import', 'tsx', path.join(here, 'fixtures', 'stuck-worker.ts'), t.url], { stdio: ['ignore', 'pipe', 'inherit'] });
    // A live worker holds the other job for the whole test (its heartbeats keep it active in pg-boss); released
    // at the end, also when an assertion fails, so the worker can stop.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    try {
      const api = await t.node('api');
      let out = '';
      doomed.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      await expect.poll(() => out, { timeout: 30_000 }).toContain('ready');
      const dead = await api.runner.enqueue('work', 's', { name: 'dead' });
      await expect.poll(() => out, { timeout: 20_000 }).toContain(`started ${dead}`);
      let holding = false;
      await t.node('worker', async () => {
        holding = true;
        await held;
      });
      const alive = await api.runner.enqueue('work', 's', { name: 'alive' });
      await expect.poll(() => holding, { timeout: 20_000 }).toBe(true);
      await expect.poll(async () => (await api.runner.get(alive))?.status, { timeout: 20_000 }).toBe('running');
      doomed.kill('SIGKILL');

      // The API node's passes, counting the statements sent to pg-boss's tables and the lines logged.
      const pool = openPostgresPool(t.url, 1);
      let statements = 0;
      const db = { executeSql: async (text: string, values?: unknown[]) => (statements++, pool.query(text, values)) };
      const logged: string[] = [];
      const store = new SqlJobStore(api.sql);
      const deps = { store, runner: api.runner, awaitingWorker: (ids: readonly string[]) => awaitingWorker(db, QUEUE, ids), log: (line: string) => logged.push(line) };
      const passes: Array<{ marked: string[]; statements: number }> = [];
      const startedAt = Date.now();
      try {
        // Past the heartbeat time (10 s) of the live worker's job, and three passes after the dead one's mark.
        while (Date.now() - startedAt < 14_000 || passes.filter((p) => p.marked.length === 0).length < 3 || !passes.some((p) => p.marked.length)) {
          if (Date.now() - startedAt > 60_000) throw new Error('the dead worker\'s job was never marked waiting');
          const before = statements;
          passes.push({ marked: await markJobsAwaitingWorker(deps), statements: statements - before });
          // Two jobs running on each pass: one statement for both.
          expect(passes.at(-1)!.statements).toBe(1);
          expect((await api.runner.get(alive))!.stage).not.toBe(WAITING_FOR_A_WORKER_STAGE);
          await new Promise((r) => setTimeout(r, 500));
        }
      } finally {
        await pool.end();
      }
      expect(passes.flatMap((p) => p.marked)).toEqual([dead]);
      expect(logged.filter((line) => line.includes(dead))).toHaveLength(1);
      expect(logged.filter((line) => line.includes(alive))).toEqual([]);
      expect(await api.runner.get(dead)).toMatchObject({ status: 'running', attempts: 1, stage: WAITING_FOR_A_WORKER_STAGE });
      // The queue's own method says the same, with the job still held by its worker.
      expect([...(await api.queue.awaitingWorker([dead, alive, 'not-a-uuid']))]).toEqual([dead]);
      release();
      expect(await api.runner.settled(alive, 20_000)).toMatchObject({ status: 'complete', attempts: 1 });
    } finally {
      release();
      doomed.kill('SIGKILL');
      await t.stop();
    }
  }, 240_000);
});
