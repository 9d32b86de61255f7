import { describe, expect, it } from 'vitest';
import { openDatabase } from '../storage/database';
import { SqlJobStore } from '../storage/job-store';
import { SqliteSql } from '../storage/sql/sqlite-sql';
import { JobRunner, WAITING_FOR_A_WORKER_STAGE } from '../jobs/job-runner';
import type { JobRecord } from '../jobs/job-record';
import { markJobsAwaitingWorker } from './hand-over-watch';

function setup() {
  const db = openDatabase(':memory:');
  db.prepare("INSERT INTO projects (id, key, name, created_at) VALUES ('p', 'p', 'p', 'now')").run();
  db.prepare("INSERT INTO sessions (id, project_id, file_name, stored_name, duration, format_json, language, created_at, status) VALUES ('s', 'p', 'a.wav', 'original.wav', 1, '{}', 'en', 'now', 'queued')").run();
  const store = new SqlJobStore(new SqliteSql(db));
  // An API node's runner: it runs nothing here, but knows where the kind shows a waiting stage.
  const shown: Array<[string, string]> = [];
  const runner = new JobRunner(store, { worker: null });
  runner.displayWaiting('work', async (job, stage) => void shown.push([job.id, stage]));
  return { db, store, runner, shown };
}

/** A job a worker took (attempt `attempts`) and was running at 40 %, in stage `recognizing`. */
function running(db: ReturnType<typeof setup>['db'], id: string, attempts = 1): void {
  db.prepare("UPDATE jobs SET status = 'running', attempts = ?, progress = 0.4, stage = 'recognizing' WHERE id = ?").run(attempts, id);
}

describe('markJobsAwaitingWorker', () => {
  it('marks a running job the queue engine holds for a worker, once, and shows it where its kind shows waiting', async () => {
    const { db, store, runner, shown } = setup();
    const dead = await runner.enqueue('work', 's');
    const alive = await runner.enqueue('work', 's');
    running(db, dead);
    running(db, alive);
    const deps = { store, runner, awaitingWorker: async () => new Set([dead]), log: () => {} };
    expect(await markJobsAwaitingWorker(deps)).toEqual([dead]);
    expect(await store.get(dead)).toMatchObject({ status: 'running', progress: 0.4, attempts: 1, stage: WAITING_FOR_A_WORKER_STAGE });
    expect((await store.get(alive))!.stage).toBe('recognizing');
    expect(shown).toEqual([[dead, WAITING_FOR_A_WORKER_STAGE]]);
    // Already marked: nothing more written on the next pass.
    expect(await markJobsAwaitingWorker(deps)).toEqual([]);
    expect(shown).toHaveLength(1);
  });

  it('leaves a job a worker took over between the look and the write (its attempts moved on)', async () => {
    const { db, store, runner, shown } = setup();
    const id = await runner.enqueue('work', 's');
    running(db, id, 1);
    const deps = {
      store,
      runner,
      // The engine said "waiting", then a worker claimed it before the stage was written.
      awaitingWorker: async () => {
        running(db, id, 2);
        return new Set([id]);
      },
      log: () => {},
    };
    expect(await markJobsAwaitingWorker(deps)).toEqual([]);
    expect((await store.get(id))!.stage).toBe('recognizing');
    expect(shown).toEqual([]);
  });

  it('is cleared when a worker takes the job over', async () => {
    const { db, store } = setup();
    let started: JobRecord | null = null;
    const worker = new JobRunner(store, { worker: null });
    const id = await worker.enqueue('work', 's');
    running(db, id, 1);
    db.prepare('UPDATE jobs SET stage = ? WHERE id = ?').run(WAITING_FOR_A_WORKER_STAGE, id);
    // The desktop's in-process worker stands in for a team worker: at its start it resumes the interrupted job.
    const taker = new JobRunner(store);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    taker.register('work', async ({ job }) => {
      started = { ...job };
      await held;
    });
    await taker.start();
    for (let i = 0; i < 100 && !started; i++) await new Promise((r) => setTimeout(r, 10));
    expect(started).not.toBeNull();
    expect(started!.stage).toBeNull();
    await new Promise((r) => setTimeout(r, 50));
    expect(await store.get(id)).toMatchObject({ status: 'running', attempts: 2, stage: null });
    release();
    await taker.stop();
  });
});
