import { afterEach, describe, expect, it } from 'vitest';
import crypto from 'node:crypto';
import { requestWorkTeam } from '../../../test/helpers/request-work-team';
import { ConflictError, InvalidInputError, issue, ServiceError, userMessage } from '../errors';
import { doRequestWork, registerRequestWork, type RequestWork } from './request-work';
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
