import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AnalysisSegment } from '../../src/shared/schemas/analysis';
import { SqlAnalysisStore } from '../../src/service/storage/analysis-store';
import { AnalysisService } from '../../src/service/analysis/analysis-service';
import { JobRunner } from '../../src/service/jobs/job-runner';
import { openStores } from '../../src/service/storage/stores';
import { openDatabase } from '../../src/service/storage/database';
import { MIGRATIONS } from '../../src/service/storage/migrations';
import type { Sql } from '../../src/service/storage/sql/sql';
import { SqliteSql } from '../../src/service/storage/sql/sqlite-sql';
import { eachBackend, insertSessions } from '../helpers/sql-backends';
import { tempDir } from '../helpers/temp';

const sessions = (sql: Sql, ...ids: string[]) => insertSessions(sql, ids, { duration: 12.5, status: 'complete' });

async function job(sql: Sql, id: string, sessionId: string, status: string): Promise<void> {
  await sql.run("INSERT INTO jobs (id, kind, session_id, status, created_at) VALUES (?, 'analysis', ?, ?, '2026-01-01T00:00:00Z')", [id, sessionId, status]);
}

const line = (id: number, text: string) => ({ id, text }) as unknown as AnalysisSegment;

// The analysis tables' contract, the same on SQLite and PostgreSQL.
eachBackend('AnalysisStore', (backend) => {
  const store = () => new SqlAnalysisStore(backend().sql);

  it('makes runs and lists them newest first, also several made in the same millisecond', async () => {
    await sessions(backend().sql, 'a', 'b');
    const analysis = store();
    const made = [];
    for (let i = 0; i < 4; i++) made.push(await analysis.create({ sessionId: 'a', duration: 12.5, version: 'v1' }));
    await analysis.create({ sessionId: 'b', duration: 3, version: 'v1' });
    const first = made[0]!;
    expect(first).toMatchObject({ session_id: 'a', status: 'queued', stage: 'queued', progress: 0, version: 'v1', duration: 12.5, job_id: null, error: null });
    expect(first.timings).toEqual({ total: 0, stages: {} });
    expect((await analysis.runs('a')).map((r) => r.run_id)).toEqual(made.map((r) => r.run_id).reverse());
    expect((await analysis.latest('a'))!.run_id).toBe(made[3]!.run_id);
    expect(await analysis.run('missing')).toBeNull();
    expect(await analysis.latest('nobody')).toBeNull();
  });

  it('queues one run when several callers ask for a recording’s analysis at once (two API nodes, say)', async () => {
    const { sql } = backend();
    await sessions(sql, 'a');
    const database = openStores(sql);
    // An API node's queue: it records jobs and runs none.
    const service = new AnalysisService(database, database.analysis, database.sessions, new JobRunner(database.jobs, { worker: null }));
    const asked = await Promise.all(Array.from({ length: 6 }, () => service.queue('a', 12.5)));
    expect(asked.filter((r) => r.created)).toHaveLength(1);
    expect(new Set(asked.map((r) => r.run.run_id)).size).toBe(1);
    expect(await database.analysis.runs('a')).toHaveLength(1);
    expect(await sql.all("SELECT id FROM jobs WHERE kind = 'analysis' AND session_id = 'a'", [])).toHaveLength(1);
  });

  it('finds the newest run of the given statuses', async () => {
    await sessions(backend().sql, 'a');
    const analysis = store();
    const old = await analysis.create({ sessionId: 'a', duration: 1, version: 'v' });
    await analysis.markRunning(old.run_id);
    await analysis.finish(old.run_id, 'complete', null);
    const failed = await analysis.create({ sessionId: 'a', duration: 1, version: 'v' });
    await analysis.finish(failed.run_id, 'failed', 'boom');
    expect((await analysis.latest('a'))!.run_id).toBe(failed.run_id);
    expect((await analysis.latest('a', ['complete']))!.run_id).toBe(old.run_id);
    expect((await analysis.latest('a', ['complete', 'failed']))!.run_id).toBe(failed.run_id);
    expect(await analysis.latest('a', ['queued', 'running'])).toBeNull();
  });

  it('keeps a distinct order for runs of one session made at the same time', async () => {
    await sessions(backend().sql, 'a');
    const analysis = store();
    const made = await Promise.all(Array.from({ length: 6 }, () => analysis.create({ sessionId: 'a', duration: 1, version: 'v' })));
    const listed = await analysis.runs('a');
    expect(listed).toHaveLength(6);
    expect(new Set(listed.map((r) => r.run_id))).toEqual(new Set(made.map((r) => r.run_id)));
  });

  it("raises the session's revision with every write that changes its analysis, in the database, and leaves other sessions' alone", async () => {
    await sessions(backend().sql, 'a', 'b');
    const analysis = store();
    expect(await analysis.revision('a')).toBe(0);
    const b = await analysis.create({ sessionId: 'b', duration: 1, version: 'v' });
    const b0 = await analysis.revision('b');
    const seen = [await analysis.revision('a')];
    const run = await analysis.create({ sessionId: 'a', duration: 1, version: 'v' });
    const writes = [
      () => analysis.setJob(run.run_id, 'job-1'),
      () => analysis.markRunning(run.run_id),
      () => analysis.progress(run.run_id, 'prosody', 0.5),
      () => analysis.addTime(run.run_id, 'prosody', 1.25),
      () => analysis.savePart(run.run_id, 'conditions', { ok: true }),
      () => analysis.saveLines(run.run_id, [line(0, 'x')]),
      () => analysis.requeue(run.run_id),
      () => analysis.markRunning(run.run_id),
      () => analysis.finish(run.run_id, 'complete', null),
    ];
    seen.push(await analysis.revision('a'));
    for (const write of writes) {
      await write();
      seen.push(await analysis.revision('a'));
    }
    for (let i = 1; i < seen.length; i++) expect(seen[i], `after write ${i}`).toBeGreaterThan(seen[i - 1]!);
    expect(await analysis.revision('b')).toBe(b0);
    expect((await analysis.run(b.run_id))!.status).toBe('queued');
    // Another node (another store over the same database) reads the same revision: nothing of it is in memory.
    expect(await store().revision('a')).toBe(seen.at(-1));
    // Read at once (as by many requests), each gets its own session's: a session without runs 0.
    const many = await Promise.all(['a', 'b', 'a', 'c', 'b'].map((id) => analysis.revision(id)));
    expect(many).toEqual([seen.at(-1), b0, seen.at(-1), 0, b0]);
  });

  it('leaves the revision alone when a write changes nothing (a settled run, an unknown run)', async () => {
    await sessions(backend().sql, 'a');
    const analysis = store();
    const run = await analysis.create({ sessionId: 'a', duration: 1, version: 'v' });
    await analysis.markRunning(run.run_id);
    await analysis.finish(run.run_id, 'complete', null);
    const settled = await analysis.revision('a');
    await analysis.finish(run.run_id, 'failed', 'late');
    await analysis.progress(run.run_id, 'prosody', 0.2);
    await analysis.requeue(run.run_id);
    await analysis.markRunning(run.run_id);
    await analysis.finish('missing', 'failed', 'x');
    expect(await analysis.revision('a')).toBe(settled);
    expect(await analysis.run(run.run_id)).toMatchObject({ status: 'complete', progress: 1, error: null });
  });

  it('never moves progress backwards and keeps the stage reported', async () => {
    await sessions(backend().sql, 'a');
    const analysis = store();
    const run = await analysis.create({ sessionId: 'a', duration: 1, version: 'v' });
    await analysis.progress(run.run_id, 'prosody', 0.5);
    expect((await analysis.run(run.run_id))!.progress).toBe(0); // not running yet
    await analysis.markRunning(run.run_id);
    expect(await analysis.run(run.run_id)).toMatchObject({ status: 'running', stage: 'decoding' });
    await analysis.progress(run.run_id, 'quality', 0.6);
    await analysis.progress(run.run_id, 'prosody', 0.25);
    expect(await analysis.run(run.run_id)).toMatchObject({ stage: 'prosody', progress: 0.6 });
    await analysis.progress(run.run_id, 'lines', 7);
    expect((await analysis.run(run.run_id))!.progress).toBe(1);
  });

  it('adds processing time per stage, also from writes in flight together', async () => {
    await sessions(backend().sql, 'a');
    const analysis = store();
    const run = await analysis.create({ sessionId: 'a', duration: 1, version: 'v' });
    await Promise.all(Array.from({ length: 10 }, (_, i) => analysis.addTime(run.run_id, i % 2 ? 'prosody' : 'quality', 0.125)));
    await analysis.addTime(run.run_id, null, 1);
    expect((await analysis.run(run.run_id))!.timings).toEqual({ total: 2.25, stages: { prosody: 0.625, quality: 0.625 } });
    await analysis.addTime('missing', 'prosody', 1); // nothing to add to
  });

  it('stores parts and lines as checkpoints: replaced by name and id, lines in id order, counted', async () => {
    await sessions(backend().sql, 'a');
    const analysis = store();
    const run = await analysis.create({ sessionId: 'a', duration: 1, version: 'v' });
    const other = await analysis.create({ sessionId: 'a', duration: 1, version: 'v' });
    expect(await analysis.parts(run.run_id)).toEqual({});
    expect(await analysis.keptWork(run.run_id)).toBe(0);
    await analysis.savePart(run.run_id, 'conditions', { noise: 1 });
    await analysis.savePart(run.run_id, 'ambience', [1, 2]);
    await analysis.savePart(run.run_id, 'conditions', { noise: 2 });
    await analysis.saveLines(run.run_id, [line(3, 'three'), line(1, 'one')]);
    await analysis.saveLines(run.run_id, [line(1, 'one again'), line(2, 'two')]);
    await analysis.saveLines(other.run_id, [line(0, 'elsewhere')]);
    expect(await analysis.parts(run.run_id)).toEqual({ ambience: [1, 2], conditions: { noise: 2 } });
    expect(await analysis.lines(run.run_id)).toEqual([line(1, 'one again'), line(2, 'two'), line(3, 'three')]);
    expect(await analysis.lineIds(run.run_id)).toEqual([1, 2, 3]);
    expect(await analysis.keptWork(run.run_id)).toBe(5);
    expect(await analysis.keptWork(other.run_id)).toBe(1);
  });

  it('writes a batch of lines whole or not at all', async () => {
    await sessions(backend().sql, 'a');
    const analysis = store();
    const run = await analysis.create({ sessionId: 'a', duration: 1, version: 'v' });
    const before = await analysis.revision('a');
    // A part or a line of a run that does not exist is refused (its key names the run).
    await expect(analysis.savePart('missing', 'conditions', {})).rejects.toThrow();
    const bad = [line(0, 'fine'), { id: null, text: 'no id' } as unknown as AnalysisSegment];
    await expect(analysis.saveLines(run.run_id, bad)).rejects.toThrow();
    expect(await analysis.lines(run.run_id)).toEqual([]);
    expect(await analysis.revision('a')).toBe(before);
  });

  it('settles a run once: complete and unavailable at full progress, failed where it stopped', async () => {
    await sessions(backend().sql, 'a');
    const analysis = store();
    const runs = [];
    for (const status of ['complete', 'unavailable', 'failed'] as const) {
      const run = await analysis.create({ sessionId: 'a', duration: 1, version: 'v' });
      await analysis.markRunning(run.run_id);
      await analysis.progress(run.run_id, 'quality', 0.4);
      await analysis.finish(run.run_id, status, status === 'complete' ? null : `why ${status}`);
      runs.push(await analysis.run(run.run_id));
    }
    expect(runs.map((r) => [r!.status, r!.stage, r!.progress, r!.error])).toEqual([
      ['complete', 'complete', 1, null],
      ['unavailable', 'unavailable', 1, 'why unavailable'],
      ['failed', 'failed', 0.4, 'why failed'],
    ]);
    expect(runs.every((r) => r!.completed_at !== null && r!.started_at !== null)).toBe(true);
  });

  it('recovers interrupted runs from their jobs at start', async () => {
    const { sql } = backend();
    await sessions(sql, 'a', 'b');
    const analysis = store();
    const make = async (session: string, jobStatus: string | null, running: boolean) => {
      const run = await analysis.create({ sessionId: session, duration: 1, version: 'v' });
      if (jobStatus) {
        await job(sql, `job-${run.run_id}`, session, jobStatus);
        await analysis.setJob(run.run_id, `job-${run.run_id}`);
      }
      if (running) await analysis.markRunning(run.run_id);
      return run.run_id;
    };
    const resumes = await make('a', 'running', true);
    const waits = await make('a', 'queued', false);
    const orphan = await make('b', null, true);
    const jobDone = await make('b', 'complete', false);
    const settled = await make('b', 'running', true);
    await analysis.finish(settled, 'complete', null);
    const before = { a: await analysis.revision('a'), b: await analysis.revision('b') };
    await analysis.recoverInterrupted();
    const status = async (id: string) => (await analysis.run(id))!;
    expect((await status(resumes)).status).toBe('queued');
    expect((await status(waits)).status).toBe('queued');
    for (const id of [orphan, jobDone]) {
      expect(await status(id)).toMatchObject({ status: 'failed', stage: 'failed', error: 'The analysis was interrupted and could not resume; start it again.' });
    }
    expect((await status(settled)).status).toBe('complete');
    expect(await analysis.revision('a')).toBeGreaterThan(before.a);
    expect(await analysis.revision('b')).toBeGreaterThan(before.b);
  });

  it("forgets a session's runs, parts and lines when the session is deleted", async () => {
    const { sql } = backend();
    await sessions(sql, 'a');
    const analysis = store();
    const run = await analysis.create({ sessionId: 'a', duration: 1, version: 'v' });
    await analysis.savePart(run.run_id, 'conditions', {});
    await analysis.saveLines(run.run_id, [line(0, 'x')]);
    await sql.run("DELETE FROM sessions WHERE id = 'a'");
    expect(await analysis.runs('a')).toEqual([]);
    expect(await analysis.revision('a')).toBe(0);
    expect(await analysis.keptWork(run.run_id)).toBe(0);
  });

  it('creates a run inside a caller\'s transaction after a refused insert (its own savepoint), and rolls back with it', async () => {
    const { sql } = backend();
    await sessions(sql, 'a');
    const first = await store().create({ sessionId: 'a', duration: 1, version: 'v' });
    // A second run with the first's id is refused; the caller's transaction goes on (PostgreSQL would abort it without a savepoint).
    const kept = await sql.transaction(async (tx) => {
      const inside = new SqlAnalysisStore(tx);
      await expect(inside.create({ id: first.run_id, sessionId: 'a', duration: 1, version: 'v' })).rejects.toThrow();
      return inside.create({ id: 'r2', sessionId: 'a', duration: 2, version: 'v2', jobId: 'j2' });
    });
    expect(kept).toMatchObject({ run_id: 'r2', job_id: 'j2', status: 'queued', duration: 2 });
    await expect(
      sql.transaction(async (tx) => {
        await new SqlAnalysisStore(tx).create({ id: 'r3', sessionId: 'a', duration: 3, version: 'v' });
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect((await store().runs('a')).map((r) => r.run_id)).toEqual(['r2', first.run_id]);
  });
});

describe('migration 13 on an embedded database with analysis runs', () => {
  it('numbers existing runs per session in the order they were made', async () => {
    const file = path.join(tempDir('analysis-migration-'), 'takeline.db');
    const old = openDatabase(
      file,
      MIGRATIONS.filter((m) => m.version < 13),
    );
    old.exec("INSERT INTO projects (id, key, name, created_at) VALUES ('p', 'p', 'P', 't')");
    old.exec("INSERT INTO sessions (id, project_id, file_name, stored_name, duration, format_json, language, created_at, status) VALUES ('a', 'p', 'a.wav', 'a.wav', 1, '{}', 'en', 't', 'complete')");
    const insert = old.prepare("INSERT INTO analysis_runs (id, session_id, status, stage, version, duration, created_at) VALUES (?, 'a', 'complete', 'complete', 'v', 1, ?)");
    insert.run('r-late', '2026-01-01T00:00:02.000Z');
    insert.run('r-early', '2026-01-01T00:00:01.000Z');
    insert.run('r-latest', '2026-01-01T00:00:03.000Z');
    old.close();
    const db = openDatabase(file);
    try {
      const analysis = new SqlAnalysisStore(new SqliteSql(db));
      expect((await analysis.runs('a')).map((r) => r.run_id)).toEqual(['r-latest', 'r-late', 'r-early']);
      const next = await analysis.create({ sessionId: 'a', duration: 1, version: 'v' });
      expect((await analysis.latest('a'))!.run_id).toBe(next.run_id);
      expect(await analysis.revision('a')).toBe(4);
    } finally {
      db.close();
    }
  });
});
