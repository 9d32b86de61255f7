import { openDatabase } from '../../src/service/storage/database';
import { SqlJobStore } from '../../src/service/storage/job-store';
import { SqliteSql } from '../../src/service/storage/sql/sqlite-sql';
import { JobRunner } from '../../src/service/jobs/job-runner';
import { QueueWorker } from '../../src/service/queue/queue-worker';

/** The desktop's runner (its in-process worker), a team's API node (none) or its worker (delivered jobs). */
export type RunnerRole = 'embedded' | 'api' | 'worker';

/**
 * An API node and a worker over one jobs table (in memory), for request work's unit tests: the worker runs each
 * job as soon as the API node queues it (pg-boss's part). `sessions` are the recordings jobs may belong to.
 * `stop()` stops every runner it made (call it after each test).
 */
export function requestWorkTeam(sessions: readonly string[] = ['s']) {
  const db = openDatabase(':memory:');
  db.prepare("INSERT INTO projects (id, key, name, created_at) VALUES ('p', 'p', 'p', 'now')").run();
  for (const id of sessions) {
    db.prepare("INSERT INTO sessions (id, project_id, file_name, stored_name, duration, format_json, language, created_at, status) VALUES (?, 'p', 'a.wav', 'original.wav', 1, '{}', 'en', 'now', 'complete')").run(id);
  }
  const store = new SqlJobStore(new SqliteSql(db));
  const made: JobRunner[] = [];
  const adapter = (role: RunnerRole) => (role === 'embedded' ? undefined : role === 'api' ? null : new QueueWorker(20));
  const runner = (role: RunnerRole) => {
    const r = new JobRunner(store, { worker: adapter(role), pollMs: 20 });
    made.push(r);
    return r;
  };
  const api = runner('api');
  // The worker's queue adapter: what pg-boss would call with each delivered job.
  const delivered = new QueueWorker(20);
  const worker = new JobRunner(store, { worker: delivered, pollMs: 20 });
  made.push(worker);
  const queue = api.enqueue.bind(api);
  api.enqueue = async (...args) => {
    const id = await queue(...args);
    setImmediate(() => void delivered.runDelivered(id));
    return id;
  };
  const stop = async () => {
    for (const r of made.splice(0)) await r.stop();
  };
  return { db, store, api, worker, delivered, runner, stop };
}
