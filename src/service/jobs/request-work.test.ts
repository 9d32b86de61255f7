import { afterEach, describe, expect, it } from 'vitest';
import crypto from 'node:crypto';
import { requestWorkTeam } from '../../../test/helpers/request-work-team';
import { ConflictError, InvalidInputError, issue, ServiceError, userMessage } from '../errors';
import { doRequestWork, registerRequestWork, type RequestWork } from './request-work';
import { JobRunner } from './job-runner';
import { actingAs, currentActor, type Actor } from '../audit/actor';

const stops: Array<() => Promise<void>> = [];
function team() {
  const made = requestWorkTeam();
  stops.push(made.stop);
  return made;
}
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

describe('request work: a job the request follows, the same code on the desktop and on a team', () => {
  it('is a job on the desktop too, which its in-process worker starts at once and the request hears settle', async () => {
    const { db, runner } = team();
    const desk = runner('embedded');
    const { w, ran } = work(async (input) => ({ words: input.text.split(' ') }));
    registerRequestWork(desk, w);
    await desk.start();
    expect(await doRequestWork(desk, w, 's', { text: 'a b' }, new AbortController().signal)).toEqual({ words: ['a', 'b'] });
    expect(ran).toEqual([{ session: 's', input: { text: 'a b' } }]);
    const row = db.prepare("SELECT kind, status, result_json FROM jobs WHERE session_id = 's'").get() as { kind: string; status: string; result_json: string };
    expect(row).toMatchObject({ kind: 'test_work', status: 'complete' });
    expect(JSON.parse(row.result_json)).toEqual({ answer: { words: ['a', 'b'] } });
  });

  it('the desktop and a team give the same answers and errors from the same use-case code', async () => {
    const desktop = team();
    const desk = desktop.runner('embedded');
    const onTeam = team();
    await onTeam.worker.start();
    const fails = new ConflictError('The transcript changed meanwhile.');
    const behaviour = async (input: Input) => {
      if (input.text === 'stale') throw fails;
      return { words: input.text.split(' ') };
    };
    const here = work(behaviour);
    const there = work(behaviour);
    registerRequestWork(desk, here.w);
    registerRequestWork(onTeam.worker, there.w);
    await desk.start();
    const answer = (jobs: typeof desk, w: typeof here.w, text: string) => doRequestWork(jobs, w, 's', { text }, new AbortController().signal).catch((e: unknown) => e);
    for (const text of ['a b c', 'stale']) {
      const a = await answer(desk, here.w, text);
      const b = await answer(onTeam.api, there.w, text);
      if (a instanceof Error) expect([a.constructor.name, a.message, userMessage(a)]).toEqual([(b as Error).constructor.name, (b as Error).message, userMessage(b)]);
      else expect(a).toEqual(b);
    }
    expect(here.ran.map((r) => r.input.text)).toEqual(['a b c', 'stale']);
    expect(there.ran).toEqual(here.ran);
    const rows = (db: typeof desktop.db) => db.prepare('SELECT kind, status FROM jobs ORDER BY created_at, rowid').all();
    expect(rows(desktop.db)).toEqual(rows(onTeam.db));
  });

  it('starts a followed job at once while another job holds the desktop worker’s slot, and hears it settle without a poll', async () => {
    const { store } = team();
    // A poll this slow would fail the test's timeout: only the settle event can answer in time.
    const desk = new JobRunner(store, { pollMs: 60_000 });
    stops.push(() => desk.stop());
    let release!: () => void;
    desk.register('long_job', () => new Promise<void>((resolve) => (release = resolve)));
    const { w } = work(async (input) => ({ words: input.text.split(' ') }));
    registerRequestWork(desk, w);
    await desk.start();
    const holding = await desk.enqueue('long_job', 's');
    for (let n = 0; n < 100 && (await desk.get(holding))?.status !== 'running'; n++) await new Promise((r) => setTimeout(r, 10));
    expect((await desk.get(holding))?.status).toBe('running');
    const started = Date.now();
    expect(await doRequestWork(desk, w, 's', { text: 'at once' }, new AbortController().signal)).toEqual({ words: ['at', 'once'] });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect((await desk.get(holding))?.status).toBe('running');
    release();
  });

  it('a client that leaves cancels the desktop’s job as it does a team’s', async () => {
    const { db, runner } = team();
    const desk = runner('embedded');
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const slow = work(
      (_input, signal) =>
        new Promise((_resolve, reject) => {
          started();
          signal.addEventListener('abort', () => reject(signal.reason));
        }),
    );
    registerRequestWork(desk, slow.w);
    await desk.start();
    const client = new AbortController();
    const answer = doRequestWork(desk, slow.w, 's', { text: 'x' }, client.signal).catch((e: unknown) => e);
    await running;
    client.abort(new Error('client left'));
    expect(await answer).toMatchObject({ message: 'client left' });
    expect(db.prepare("SELECT status FROM jobs WHERE session_id = 's'").get()).toEqual({ status: 'cancelled' });
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

  it('does the work for whoever asked: the worker runs it as the request\'s actor (what it records names them)', async () => {
    const { db, api, worker } = team();
    await worker.start();
    const asker: Actor = { kind: 'user', name: 'Ada Lovelace', user: 'ada', keyId: null, keyName: null, address: '10.0.0.7' };
    const w: RequestWork<Input, { by: string }> = { kind: 'test_work', run: async () => ({ by: currentActor().name }) };
    registerRequestWork(worker, w);
    expect(await actingAs(asker, () => doRequestWork(api, w, 's', { text: 'a' }, new AbortController().signal))).toEqual({ by: 'Ada Lovelace' });
    // What crosses to another process: the job's payload names the actor.
    const row = db.prepare("SELECT payload_json FROM jobs WHERE kind = 'test_work'").get() as { payload_json: string };
    expect(JSON.parse(row.payload_json)).toEqual({ text: 'a', acting_as: asker });
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

  it('runs a job again after its worker died: `resume` answers what the dead run stored, else the work runs again; a first run never asks', async () => {
    const { db, store, worker, delivered } = team();
    await worker.start();
    const stored = new Set(['kept']);
    const ran: string[] = [];
    const w: RequestWork<Input, { text: string; from: string }> = {
      kind: 'test_work',
      run: async (_session, input) => {
        ran.push(input.text);
        return { text: input.text, from: 'run' };
      },
      resume: async (_session, input) => (stored.has(input.text) ? { text: input.text, from: 'stored' } : null),
    };
    registerRequestWork(worker, w);
    // A worker claimed each of these and died (the record says running, attempt 1); the queue delivers them again.
    const job = async (text: string, died: boolean) => {
      const id = crypto.randomUUID();
      await store.insert(id, 'test_work', 's', { text });
      if (died) expect(await store.claim(id)).toBe(true);
      await delivered.runDelivered(id);
      const row = db.prepare('SELECT status, attempts, result_json FROM jobs WHERE id = ?').get(id) as { status: string; attempts: number; result_json: string };
      return { status: row.status, attempts: row.attempts, answer: JSON.parse(row.result_json).answer };
    };
    expect(await job('kept', true)).toEqual({ status: 'complete', attempts: 2, answer: { text: 'kept', from: 'stored' } });
    expect(await job('lost', true)).toEqual({ status: 'complete', attempts: 2, answer: { text: 'lost', from: 'run' } });
    expect(await job('kept', false)).toEqual({ status: 'complete', attempts: 1, answer: { text: 'kept', from: 'run' } });
    expect(ran).toEqual(['lost', 'kept']);
  });
});
