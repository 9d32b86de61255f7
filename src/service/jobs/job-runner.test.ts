import { describe, expect, it } from 'vitest';
import { openDatabase } from '../storage/database';
import { SqlJobStore } from '../storage/job-store';
import { SqliteSql } from '../storage/sql/sqlite-sql';
import { JobRunner, type JobKindOptions } from './job-runner';

function setup() {
  const db = openDatabase(':memory:');
  db.prepare("INSERT INTO projects (id, key, name, created_at) VALUES ('p', 'p', 'p', 'now')").run();
  db.prepare("INSERT INTO sessions (id, project_id, file_name, stored_name, duration, format_json, language, created_at, status) VALUES ('s', 'p', 'a.wav', 'original.wav', 1, '{}', 'en', 'now', 'queued')").run();
  return db;
}

function runnerOn(db: ReturnType<typeof setup>, options: { log?: (line: string) => void } = {}): JobRunner {
  return new JobRunner(new SqlJobStore(new SqliteSql(db)), options);
}

/**
 * What a kill -9 leaves behind: the job `running` after `attempts` runs, at `progress`, having been
 * interrupted `stalled` times already without getting past `best`.
 */
async function crashed(db: ReturnType<typeof setup>, runner: JobRunner, attempts: number, progress: number, best: number, stalled = attempts - 1): Promise<string> {
  const id = await runner.enqueue('work', 's', { n: 1 });
  db.prepare("UPDATE jobs SET status = 'running', attempts = ?, progress = ?, best_progress = ?, stalled_interruptions = ? WHERE id = ?").run(attempts, progress, best, stalled, id);
  return id;
}

describe('JobRunner after interruptions', () => {
  it('fails a job that died at the same point three times (a crash loop)', async () => {
    const db = setup();
    const runner = runnerOn(db);
    const id = await crashed(db, runner, 3, 0.4, 0.4);
    await runner.start();
    expect(await runner.get(id)).toMatchObject({ status: 'failed', error: expect.stringMatching(/interrupted 3 times at the same point \(40%\)/) });
    await runner.stop();
  });

  it('resumes a job that got further since its last interruption, however often it was interrupted', async () => {
    const db = setup();
    const runner = runnerOn(db);
    const seen: number[] = [];
    runner.register('work', async ({ job }) => {
      seen.push(job.attempts);
    });
    const id = await crashed(db, runner, 3, 0.55, 0.4);
    await runner.start();
    await new Promise((r) => setTimeout(r, 50));
    expect(await runner.get(id)).toMatchObject({ status: 'complete' });
    // Its fourth run (attempts counts every run); the interruptions at the new point started again from one.
    expect(seen).toEqual([4]);
    expect(db.prepare('SELECT best_progress, stalled_interruptions FROM jobs WHERE id = ?').get(id)).toEqual({ best_progress: 0.55, stalled_interruptions: 1 });
    await runner.stop();
  });

  it('counts kept checkpoints as getting further even when the progress fraction stood still', async () => {
    // Chunks finish out of order: a kill can land after a new chunk was kept but before the in-order
    // progress moved. Three such kills are a job making progress, not a crash loop.
    const db = setup();
    const lines: string[] = [];
    let kept = 0;
    const keptRunner = () => {
      const runner = runnerOn(db, { log: (line) => lines.push(line) });
      const options: JobKindOptions = { keptWork: () => Promise.resolve(kept) };
      runner.register('work', options, async () => new Promise<void>(() => {}));
      return runner;
    };
    const id = await crashed(db, keptRunner(), 3, 0.4, 0.4, 2);
    for (let kill = 0; kill < 3; kill++) {
      kept++;
      db.prepare("UPDATE jobs SET status = 'running' WHERE id = ?").run(id);
      const runner = keptRunner();
      await runner.start();
      expect((await runner.get(id))!.status).toBe('running');
      expect(db.prepare('SELECT best_kept_work, stalled_interruptions FROM jobs WHERE id = ?').get(id)).toEqual({ best_kept_work: kept, stalled_interruptions: 1 });
    }
    // Kept work that stays put with the progress counts towards the crash loop again, and says so in the log.
    for (let kill = 0; kill < 2; kill++) {
      db.prepare("UPDATE jobs SET status = 'running' WHERE id = ?").run(id);
      await keptRunner().start();
    }
    expect(db.prepare('SELECT status, stalled_interruptions FROM jobs WHERE id = ?').get(id)).toEqual({ status: 'failed', stalled_interruptions: 3 });
    expect(lines).toEqual([expect.stringMatching(/^job .* \(work\) failed: interrupted 3 times at the same point$/)]);
  });

  it('queues a failed job again on retry, with its payload; refuses while the newest has not failed', async () => {
    const db = setup();
    const runner = runnerOn(db);
    const payloads: unknown[] = [];
    runner.register('work', async ({ job }) => {
      payloads.push(job.payload);
    });
    const id = await crashed(db, runner, 3, 0.1, 0.1);
    await runner.start();
    expect((await runner.get(id))!.status).toBe('failed');
    const again = await runner.retry('work', 's');
    expect(again).not.toBeNull();
    expect(await runner.retry('work', 's')).toBeNull();
    await new Promise((r) => setTimeout(r, 50));
    expect(await runner.get(again!)).toMatchObject({ status: 'complete', attempts: 1 });
    expect(db.prepare('SELECT stalled_interruptions AS n FROM jobs WHERE id = ?').get(again!)).toEqual({ n: 0 });
    expect(payloads).toEqual([{ n: 1 }]);
    await runner.stop();
  });

  it('survives a listener or the database failing while it records an outcome (a full disk), and goes on with the queue', async () => {
    const db = setup();
    const lines: string[] = [];
    const runner = runnerOn(db, { log: (line) => lines.push(line) });
    let ran = 0;
    runner.register('work', async () => {
      ran++;
    });
    let fail = true;
    runner.on('settled', () => {
      if (fail) throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
    });
    await runner.start();
    await runner.enqueue('work', 's');
    await new Promise((r) => setTimeout(r, 50));
    fail = false;
    const second = await runner.enqueue('work', 's');
    await new Promise((r) => setTimeout(r, 50));
    expect(ran).toBe(2);
    expect((await runner.get(second))!.status).toBe('complete');
    expect(lines.join('\n')).toMatch(/could not report its outcome: database or disk is full/);
    await runner.stop();
  });
});

describe('JobRunner queue order', () => {
  it('starts queued jobs oldest first, a background kind after every other kind', async () => {
    const db = setup();
    const runner = runnerOn(db);
    const started: string[] = [];
    // Each job runs until the test lets it go, so the queue's order is what the next start shows.
    const release: Array<() => void> = [];
    const hold = (job: { payload: Record<string, unknown> }) => {
      started.push(String(job.payload.name));
      return new Promise<void>((resolve) => release.push(resolve));
    };
    runner.register('analysis', { background: true }, async ({ job }) => hold(job));
    runner.register('transcribe', async ({ job }) => hold(job));
    // Lets the running job finish and waits for the next one to start.
    const next = async () => {
      const count = started.length;
      release.shift()!();
      await expect.poll(() => started.length).toBe(count + 1);
    };
    await runner.enqueue('analysis', 's', { name: 'a1' });
    await runner.enqueue('analysis', 's', { name: 'a2' });
    await runner.enqueue('transcribe', 's', { name: 't1' });
    await runner.enqueue('transcribe', 's', { name: 't2' });
    await runner.start();
    await expect.poll(() => started.length).toBe(1);
    await next();
    await next();
    expect(started).toEqual(['t1', 't2', 'a1']);
    // Queued while a background job runs: it waits for that one only, not for the other queued analysis.
    await runner.enqueue('transcribe', 's', { name: 't3' });
    await next();
    await next();
    expect(started).toEqual(['t1', 't2', 'a1', 't3', 'a2']);
    release.shift()!();
    await expect.poll(() => db.prepare("SELECT COUNT(*) AS n FROM jobs WHERE status = 'complete'").get()).toEqual({ n: 5 });
    await runner.stop();
  });
});

describe('JobRunner quick kinds', () => {
  it('starts a quick job in a slot of its own, beside a running job of any kind, one quick job at a time', async () => {
    const db = setup();
    const runner = runnerOn(db);
    const running = new Set<string>();
    const release = new Map<string, () => void>();
    const hold = (job: { payload: Record<string, unknown> }) => {
      const name = String(job.payload.name);
      running.add(name);
      return new Promise<void>((resolve) => release.set(name, () => (running.delete(name), resolve())));
    };
    runner.register('analysis', { background: true }, async ({ job }) => hold(job));
    runner.register('convert', { quick: true }, async ({ job }) => hold(job));
    runner.register('adapt', async ({ job }) => hold(job));
    await runner.start();
    await runner.enqueue('adapt', 's', { name: 'd1' });
    await expect.poll(() => [...running]).toEqual(['d1']);
    // The adaptation holds the queue: the conversion starts beside it, the analysis and a second conversion wait.
    await runner.enqueue('analysis', 's', { name: 'a1' });
    await runner.enqueue('convert', 's', { name: 'c1' });
    await runner.enqueue('convert', 's', { name: 'c2' });
    await expect.poll(() => [...running].sort()).toEqual(['c1', 'd1']);
    await new Promise((r) => setTimeout(r, 100));
    expect([...running].sort()).toEqual(['c1', 'd1']);
    release.get('c1')!();
    await expect.poll(() => [...running].sort()).toEqual(['c2', 'd1']);
    release.get('c2')!();
    await new Promise((r) => setTimeout(r, 100));
    expect([...running]).toEqual(['d1']);
    release.get('d1')!();
    await expect.poll(() => [...running]).toEqual(['a1']);
    // Beside a running analysis too.
    await runner.enqueue('convert', 's', { name: 'c3' });
    await expect.poll(() => [...running].sort()).toEqual(['a1', 'c3']);
    release.get('c3')!();
    release.get('a1')!();
    await expect.poll(() => db.prepare("SELECT COUNT(*) AS n FROM jobs WHERE status = 'complete'").get()).toEqual({ n: 5 });
    await runner.stop();
  });
});

describe('JobRunner waits and cancellations', () => {
  it('answers `settled` with the outcome once a job settles, at once for a settled one, and null when the wait runs out', async () => {
    const db = setup();
    const runner = runnerOn(db);
    let release!: () => void;
    runner.register('work', async () => new Promise<void>((resolve) => (release = resolve)));
    await runner.start();
    const id = await runner.enqueue('work', 's');
    expect(await runner.settled(id, 50)).toBeNull();
    const waiting = runner.settled(id, 10_000);
    await expect.poll(() => typeof release).toBe('function');
    release();
    expect(await waiting).toMatchObject({ id, status: 'complete' });
    expect(await runner.settled(id, 0)).toMatchObject({ id, status: 'complete' });
    expect(await runner.settled('no-such-job', 10)).toBeNull();
    await runner.stop();
  });

  it("cancels a session's queued job and stops its running one, which settle as cancelled", async () => {
    const db = setup();
    const runner = runnerOn(db);
    const started: string[] = [];
    runner.register('work', async ({ job, signal }) => {
      started.push(job.id);
      await new Promise<void>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error)));
    });
    await runner.start();
    const running = await runner.enqueue('work', 's');
    const queued = await runner.enqueue('work', 's');
    await expect.poll(() => started).toEqual([running]);
    await runner.cancelSession('s');
    expect(await runner.get(running)).toMatchObject({ status: 'cancelled', error: 'cancelled' });
    expect(await runner.get(queued)).toMatchObject({ status: 'cancelled' });
    await new Promise((r) => setTimeout(r, 50));
    expect(started).toEqual([running]);
    await runner.stop();
  });
});
