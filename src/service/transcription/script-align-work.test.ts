import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConflictError } from '../errors';
import { JobRunner } from '../jobs/job-runner';
import { openDatabase } from '../storage/database';
import { SqlJobStore } from '../storage/job-store';
import { SqlScriptAlignCheckpointStore } from '../storage/script-align-checkpoint-store';
import { SqliteSql } from '../storage/sql/sqlite-sql';
import type { ScriptAlignment } from './script-align';
import { ALIGN_SCRIPT_JOB, registerScriptAlignment } from './script-align-work';

const runners: JobRunner[] = [];
afterEach(async () => {
  for (const r of runners.splice(0)) await r.stop();
});

/**
 * A process's runner of alignment jobs (the desktop's runner, which emits what a worker's does) whose alignment
 * keeps one more stretch, then does what `then` says (answer, throw, or wait until it is stopped), over one
 * database holding the jobs and the checkpoints.
 */
function setup(then: (signal: AbortSignal) => Promise<unknown>, db = openDatabase(':memory:')) {
  if (!db.prepare("SELECT id FROM sessions WHERE id = 's'").get()) {
    db.prepare("INSERT INTO projects (id, key, name, created_at) VALUES ('p', 'p', 'p', 'now')").run();
    db.prepare("INSERT INTO sessions (id, project_id, file_name, stored_name, duration, format_json, language, created_at, status) VALUES ('s', 'p', 'a.wav', 'original.wav', 60, '{}', 'en', 'now', 'complete')").run();
  }
  const sql = new SqliteSql(db);
  const checkpoints = new SqlScriptAlignCheckpointStore(sql);
  const runner = new JobRunner(new SqlJobStore(sql));
  runners.push(runner);
  let started!: () => void;
  const running = new Promise<void>((resolve) => (started = resolve));
  const alignment = {
    align: async (sessionId: string, _input: unknown, signal: AbortSignal) => {
      const from = (await checkpoints.count(sessionId)) * 10;
      await checkpoints.save(sessionId, 'ctx', { from, to: from + 10, start: from, end: from + 8, words: null });
      started();
      return then(signal);
    },
  } as unknown as ScriptAlignment;
  registerScriptAlignment(runner, alignment, checkpoints);
  return { db, runner, checkpoints, running };
}

const untilStopped = (signal: AbortSignal) => new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));

describe('alignment jobs and their checkpoints', () => {
  it('removes the checkpoints once the job is complete, failed or cancelled: none of them is run again', async () => {
    for (const [outcome, then] of [
      ['complete', async () => ({ revision: 1 })],
      ['failed', async () => Promise.reject(new ConflictError('The transcript changed meanwhile.'))],
      ['cancelled', untilStopped],
    ] as const) {
      const { runner, checkpoints, running } = setup(then);
      await runner.start();
      const id = await runner.enqueue(ALIGN_SCRIPT_JOB, 's', { text: 'a script' });
      await running;
      expect(await checkpoints.count('s')).toBe(1);
      if (outcome === 'cancelled') await runner.cancel([id]);
      expect((await runner.settled(id, 10_000))?.status).toBe(outcome);
      await vi.waitFor(async () => expect(await checkpoints.count('s')).toBe(0));
    }
  });

  it('keeps them for the next attempt when the job is handed back, and counts them as its kept work', async () => {
    const first = setup(untilStopped);
    const settled: string[] = [];
    first.runner.on('settled', (job) => settled.push(job.status));
    await first.runner.start();
    const id = await first.runner.enqueue(ALIGN_SCRIPT_JOB, 's', { text: 'a script' });
    await first.running;
    // The process stops: the job is queued again, its stretch kept.
    await first.runner.stop();
    expect(settled).toEqual(['queued']);
    await new Promise((r) => setTimeout(r, 50));
    expect(await first.checkpoints.count('s')).toBe(1);
    // Its next attempt is killed after keeping a second stretch (the record stays running); the next start counts
    // the interruption with the stretches kept as the job's progress, and the run after it completes.
    const second = setup(untilStopped, first.db);
    await second.runner.start();
    await second.running;
    expect(await second.checkpoints.count('s')).toBe(2);
    runners.splice(runners.indexOf(second.runner), 1);
    const third = setup(async () => ({ revision: 1 }), first.db);
    third.db.prepare("UPDATE jobs SET status = 'running' WHERE id = ?").run(id);
    await third.runner.start();
    expect(first.db.prepare('SELECT best_kept_work AS kept FROM jobs WHERE id = ?').get(id)).toEqual({ kept: 2 });
    expect((await third.runner.settled(id, 10_000))?.status).toBe('complete');
    await vi.waitFor(async () => expect(await third.checkpoints.count('s')).toBe(0));
  });
});
