import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../storage/database';
import { SqlJobStore } from '../storage/job-store';
import { SqliteSql } from '../storage/sql/sqlite-sql';
import { ConflictError, InvalidInputError, issue, ServiceError, userMessage } from '../errors';
import { JobRunner, type RunnerRole } from './job-runner';
import { doRequestWork, registerRequestWork, type RequestWork } from './request-work';

/** An API node and a worker over one jobs table; the worker runs each job as soon as the API node queues it (pg-boss's part). */
function team() {
  const db = openDatabase(':memory:');
  db.prepare("INSERT INTO projects (id, key, name, created_at) VALUES ('p', 'p', 'p', 'now')").run();
  db.prepare("INSERT INTO sessions (id, project_id, file_name, stored_name, duration, format_json, language, created_at, status) VALUES ('s', 'p', 'a.wav', 'original.wav', 1, '{}', 'en', 'now', 'complete')").run();
  const store = new SqlJobStore(new SqliteSql(db));
  const runner = (role: RunnerRole) => new JobRunner(store, { role, pollMs: 20 });
  const api = runner('api');
  const worker = runner('worker');
  const queue = api.enqueue.bind(api);
  api.enqueue = async (...args) => {
    const id = await queue(...args);
    setImmediate(() => void worker.runDelivered(id));
    return id;
  };
  stops.push(() => api.stop(), () => worker.stop());
  return { db, api, worker, runner };
}
const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

type Input = { text: string };

/** Work that answers, throws what `fail` says, or waits until it is cancelled; `ran` says which process ran it. */
function work(behaviour: (input: Input, signal: AbortSignal) => Promise<{ words: string[] }>) {
  const ran: Array<{ session: string; input: Input }> = [];
  const w: RequestWork<Input, { words: string[] }> = {
    kind: 'test_work',
    run: async (session, input, signal) => {
      ran.push({ session, input });
      return behaviour(input, signal);
    },
  };
  return { w, ran };
}

describe('request work: the desktop does it in its process, a team API node has a worker do it', () => {
  it('runs in process on the desktop, with no job', async () => {
    const { db, runner } = team();
    const desk = runner('embedded');
    const { w, ran } = work(async (input) => ({ words: input.text.split(' ') }));
    registerRequestWork(desk, w);
    expect(await doRequestWork(desk, w, 's', { text: 'a b' }, new AbortController().signal)).toEqual({ words: ['a', 'b'] });
    expect(ran).toEqual([{ session: 's', input: { text: 'a b' } }]);
    expect(db.prepare('SELECT count(*) AS n FROM jobs').get()).toEqual({ n: 0 });
  });

  it('answers with what the worker’s job returned, kept in its record', async () => {
    const { db, api, worker } = team();
    await worker.start();
    const { w, ran } = work(async (input) => ({ words: input.text.split(' ') }));
    registerRequestWork(worker, w);
    expect(await doRequestWork(api, w, 's', { text: 'a b' }, new AbortController().signal)).toEqual({ words: ['a', 'b'] });
    expect(ran).toHaveLength(1);
    const row = db.prepare("SELECT kind, status, result_json FROM jobs WHERE session_id = 's'").get() as { kind: string; status: string; result_json: string };
    expect(row).toMatchObject({ kind: 'test_work', status: 'complete' });
    expect(JSON.parse(row.result_json)).toEqual({ answer: { words: ['a', 'b'] } });
  });

  it('throws the domain error the worker threw, kind, message, detail and located faults alike', async () => {
    const { api, worker } = team();
    await worker.start();
    const conflict = work(() => Promise.reject(new ConflictError('The transcript changed meanwhile.', { code: 'stale' })));
    registerRequestWork(worker, conflict.w);
    const thrown = await doRequestWork(api, conflict.w, 's', { text: 'x' }, new AbortController().signal).catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(ServiceError);
    expect(thrown).toMatchObject({ kind: 'conflict', message: 'The transcript changed meanwhile.', detail: { code: 'stale' } });

    const faults = [issue(['body', 'text'], 'The script has no words.', 'value_error', null)];
    const invalid = work(() => Promise.reject(new InvalidInputError(faults)));
    registerRequestWork(worker, invalid.w);
    const refused = await doRequestWork(api, invalid.w, 's', { text: 'x' }, new AbortController().signal).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(InvalidInputError);
    expect((refused as InvalidInputError).issues).toEqual(faults);
  });

  it('keeps an internal failure internal: no message of it reaches the client', async () => {
    const { api, worker } = team();
    await worker.start();
    const broken = work(() => Promise.reject(new Error('ENOENT /srv/secret/path')));
    registerRequestWork(worker, broken.w);
    const thrown = await doRequestWork(api, broken.w, 's', { text: 'x' }, new AbortController().signal).catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(Error);
    expect(userMessage(thrown)).toBeNull();
    expect((thrown as Error).message).not.toMatch(/secret/);
  });

  it('cancels the worker’s job when the client leaves: the work sees its signal abort, the job is recorded cancelled', async () => {
    const { db, api, worker } = team();
    await worker.start();
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    let stoppedBy: unknown = null;
    const slow = work(
      (_input, signal) =>
        new Promise((_resolve, reject) => {
          started();
          signal.addEventListener('abort', () => {
            stoppedBy = signal.reason;
            reject(signal.reason);
          });
        }),
    );
    registerRequestWork(worker, slow.w);
    const client = new AbortController();
    const answer = doRequestWork(api, slow.w, 's', { text: 'x' }, client.signal).catch((e: unknown) => e);
    await running;
    client.abort(new Error('client left'));
    expect(await answer).toMatchObject({ message: 'client left' });
    // The API node's cancel waits for the worker to record that it stopped.
    expect(stoppedBy).not.toBeNull();
    expect(db.prepare("SELECT status, finished_at IS NOT NULL AS finished FROM jobs WHERE session_id = 's'").get()).toEqual({ status: 'cancelled', finished: 1 });
  });
});
