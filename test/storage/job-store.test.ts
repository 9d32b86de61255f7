import { expect, it } from 'vitest';
import { JobRunner } from '../../src/service/jobs/job-runner';
import { SqlJobStore } from '../../src/service/storage/job-store';
import type { Sql } from '../../src/service/storage/sql/sql';
import { eachBackend, insertSessions } from '../helpers/sql-backends';

const sessions = (sql: Sql, ...ids: string[]) => insertSessions(sql, ids);

// The job records' contract, the same on SQLite and PostgreSQL: what the runner of either mode relies on.
eachBackend('JobStore', (backend) => {
  const store = () => new SqlJobStore(backend().sql);

  it('keeps a job as queued with its payload, and reads it back', async () => {
    await sessions(backend().sql, 's');
    const jobs = store();
    await jobs.insert('j1', 'transcribe', 's', { model: 'x', n: 2 });
    expect(await jobs.get('j1')).toEqual({
      id: 'j1',
      kind: 'transcribe',
      session_id: 's',
      status: 'queued',
      payload: { model: 'x', n: 2 },
      progress: 0,
      stage: null,
      error: null,
      attempts: 0,
      result: null,
    });
    expect(await jobs.get('missing')).toBeNull();
    expect(await jobs.waiting('transcribe', 's')).toBe(true);
    expect(await jobs.waiting('analysis', 's')).toBe(false);
  });

  it('starts queued jobs in the order they were queued (within one millisecond too), background kinds last', async () => {
    await sessions(backend().sql, 's');
    const jobs = store();
    // Queued together: most fall in the same millisecond, where only the queueing order can tell them apart.
    for (const [id, kind] of [['a1', 'analysis'], ['t1', 'transcribe'], ['a2', 'analysis'], ['t2', 'transcribe'], ['t3', 'transcribe']] as const) {
      await jobs.insert(id, kind, 's', {});
    }
    const order: string[] = [];
    for (;;) {
      const id = await jobs.nextQueued(['analysis', 'transcribe'], ['analysis']);
      if (!id) break;
      expect(await jobs.claim(id)).toBe(true);
      order.push(id);
    }
    expect(order).toEqual(['t1', 't2', 't3', 'a1', 'a2']);
    expect(await jobs.nextQueued([], [])).toBeNull();
  });

  it('lets one claim win when several runners reach for the same job at once', async () => {
    await sessions(backend().sql, 's');
    const jobs = store();
    await jobs.insert('j', 'transcribe', 's', {});
    const claims = await Promise.all(Array.from({ length: 6 }, () => jobs.claim('j')));
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(await jobs.get('j')).toMatchObject({ status: 'running', attempts: 1 });
    expect(await jobs.claim('j')).toBe(false);
  });

  it('counts interruptions at the same point, and starts again from one when a job got further', async () => {
    await sessions(backend().sql, 's');
    const { sql } = backend();
    const jobs = store();
    await jobs.insert('j', 'transcribe', 's', {});
    await jobs.claim('j');
    await jobs.setProgress('j', 0.4, 'recognizing');
    // The first interruption got further than nothing before it.
    await jobs.countInterruption('j', 2, 0.001);
    const row = () => sql.get<{ stalled_interruptions: number; best_progress: number; best_kept_work: number }>('SELECT stalled_interruptions, best_progress, best_kept_work FROM jobs WHERE id = ?', ['j']);
    expect(await row()).toEqual({ stalled_interruptions: 1, best_progress: 0.4, best_kept_work: 2 });
    expect(await jobs.crashLooping(2)).toEqual([]);
    await jobs.countInterruption('j', 2, 0.001);
    expect(await jobs.crashLooping(2)).toEqual([{ id: 'j', n: 2 }]);
    // More kept work (checkpoints) is getting further, whatever the progress fraction says.
    await jobs.countInterruption('j', 3, 0.001);
    expect(await row()).toEqual({ stalled_interruptions: 1, best_progress: 0.4, best_kept_work: 3 });
    expect(await jobs.interrupted()).toEqual([{ id: 'j', kind: 'transcribe' }]);
    await jobs.requeueRunning();
    expect(await jobs.interrupted()).toEqual([]);
    expect(await jobs.get('j')).toMatchObject({ status: 'queued', progress: 0.4, stage: 'recognizing' });
  });

  it("cancels a session's queued jobs only, finds its newest job of a kind, and records outcomes", async () => {
    await sessions(backend().sql, 's', 't');
    const jobs = store();
    await jobs.insert('old', 'transcribe', 's', { n: 1 });
    await jobs.insert('new', 'transcribe', 's', { n: 2 });
    await jobs.insert('other', 'transcribe', 't', {});
    await jobs.claim('old');
    await jobs.finish('old', 'failed', 'no speech', 0.5);
    expect(await jobs.get('old')).toMatchObject({ status: 'failed', error: 'no speech', progress: 0.5 });
    expect(await jobs.latest('transcribe', 's')).toEqual({ id: 'new', status: 'queued', payload: { n: 2 } });
    expect(await jobs.latest('analysis', 's')).toBeNull();
    await jobs.cancelQueued('s');
    expect((await jobs.get('new'))!.status).toBe('cancelled');
    expect((await jobs.get('old'))!.status).toBe('failed');
    expect((await jobs.get('other'))!.status).toBe('queued');
    expect(await jobs.sessionJobIds('s')).toEqual(['old', 'new']);
    expect(await jobs.claim('new')).toBe(false);
  });

  // ---- cancelling given jobs (a deleted dub's revoice and takes) ----
  it('cancels given jobs that are queued or running, returns the running ones, and leaves settled and other jobs', async () => {
    await sessions(backend().sql, 's');
    const jobs = store();
    for (const id of ['queued', 'running', 'done', 'untouched']) await jobs.insert(id, 'dub-revoice', 's', {});
    await jobs.claim('running');
    await jobs.claim('done');
    await jobs.finish('done', 'complete', null, 1);
    expect(await jobs.cancelJobs([])).toEqual([]);
    expect(await jobs.cancelJobs(['queued', 'running', 'done', 'missing'])).toEqual(['running']);
    expect(Object.fromEntries(await jobs.statuses(['queued', 'running', 'done', 'untouched']))).toEqual({ queued: 'cancelled', running: 'cancelled', done: 'complete', untouched: 'queued' });
    expect(await jobs.get('running')).toMatchObject({ status: 'cancelled', error: 'cancelled' });
    // The runner that ran it has not yet said it stopped; nothing can claim the cancelled ones.
    expect(await jobs.unfinished(['running'])).toEqual(['running']);
    expect(await jobs.claim('queued')).toBe(false);
  });
  // ---- end of cancelling given jobs ----

  it('queues work inside a transaction only if it commits, and the runner starts it once committed', async () => {
    const { sql } = backend();
    await sessions(sql, 's');
    const runner = new JobRunner(store());
    const ran: string[] = [];
    runner.register('work', async ({ job }) => {
      ran.push(String(job.payload.name));
    });
    await runner.start();
    await expect(
      sql.transaction(async (tx) => {
        await runner.enqueue('work', 's', { name: 'rolled back' }, new SqlJobStore(tx));
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    const id = await sql.transaction(async (tx) => {
      const queued = await runner.enqueue('work', 's', { name: 'committed' }, new SqlJobStore(tx));
      // Still inside: nothing may have started it yet on this database.
      expect(ran).toEqual([]);
      return queued;
    });
    expect(await runner.settled(id, 10_000)).toMatchObject({ id, status: 'complete', progress: 1 });
    expect(ran).toEqual(['committed']);
    expect(await sql.get<{ n: number }>('SELECT count(*) AS n FROM jobs', [])).toEqual({ n: 1 });
    await runner.stop();
  });

  it('keeps what a job found: published while it runs, its handler’s return once complete, the last published when it fails', async () => {
    const { sql } = backend();
    await sessions(sql, 's');
    const runner = new JobRunner(store());
    // Another process's view of the record: what an API node reads while a worker runs the job.
    const seen: unknown[] = [];
    runner.register('found', async ({ job, publish }) => {
      publish({ texts: ['one'] });
      publish({ texts: ['one', 'two'] });
      // Published writes are not awaited by the handler: they land in order, soon after.
      let found = null;
      for (let i = 0; i < 200 && (found as { texts?: string[] } | null)?.texts?.length !== 2; i++) {
        await new Promise((r) => setTimeout(r, 25));
        found = (await store().get(job.id))!.result;
      }
      seen.push(found);
      if (job.payload.fail) throw new Error('broke');
      return { texts: ['one', 'two', 'three'], turns: [{ speaker: 'S1', start: 0, end: 1.5 }] };
    });
    await runner.start();
    const ok = await runner.enqueue('found', 's');
    expect((await runner.settled(ok, 10_000))!.result).toEqual({ texts: ['one', 'two', 'three'], turns: [{ speaker: 'S1', start: 0, end: 1.5 }] });
    expect((await store().get(ok))!.result).toEqual({ texts: ['one', 'two', 'three'], turns: [{ speaker: 'S1', start: 0, end: 1.5 }] });
    const failed = await runner.enqueue('found', 's', { fail: true });
    expect(await runner.settled(failed, 10_000)).toMatchObject({ status: 'failed' });
    expect((await store().get(failed))!.result).toEqual({ texts: ['one', 'two'] });
    expect(seen).toEqual([{ texts: ['one', 'two'] }, { texts: ['one', 'two'] }]);
    await runner.stop();
  });

  it('counts jobs by kind and status (the metrics), and says when a job was queued', async () => {
    await sessions(backend().sql, 's');
    const jobs = store();
    expect(await jobs.counts()).toEqual([]);
    const before = Date.now();
    for (const [id, kind] of [['a', 'transcribe'], ['b', 'transcribe'], ['c', 'analysis'], ['d', 'analysis']] as const) await jobs.insert(id, kind, 's', {});
    expect(await jobs.claim('a')).toBe(true);
    await jobs.finish('a', 'complete', null, 1);
    await jobs.finish('c', 'failed', 'no', 0);
    const counts = (await jobs.counts()).sort((x, y) => `${x.kind}/${x.status}`.localeCompare(`${y.kind}/${y.status}`));
    expect(counts).toEqual([
      { kind: 'analysis', status: 'failed', n: 1 },
      { kind: 'analysis', status: 'queued', n: 1 },
      { kind: 'transcribe', status: 'complete', n: 1 },
      { kind: 'transcribe', status: 'queued', n: 1 },
    ]);
    const queued = Date.parse((await jobs.queuedAt('b'))!);
    expect(queued).toBeGreaterThanOrEqual(before - 5);
    expect(queued).toBeLessThanOrEqual(Date.now() + 5);
    expect(await jobs.queuedAt('missing')).toBeNull();
  });
});
