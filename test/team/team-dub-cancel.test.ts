import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openPostgresPool } from '../../src/service/storage/sql/postgres-sql';
import { postgresPerFile } from '../helpers/postgres-per-file';
import { startServiceProcess, type ServiceProcess } from '../helpers/service';
import { tempDir } from '../helpers/temp';
import { startWorker, teamEnv, type Worker } from '../helpers/team';
import { until } from '../helpers/poll';
import { createSession, dubMaster, referenceLines, revoiceToEnd, sessionSettled, uploadDub } from '../helpers/dubs';

const pg = postgresPerFile();

describe("team mode: deleting a dub or its recording stops the dub's revoice or preparation on the worker running it", () => {
  it('cancels the revoice (and a preparing dub\'s preparation) job on the worker (not the API node), removes the files once it has stopped, and the worker carries on', { timeout: 900_000 }, async () => {
    const env = await teamEnv(pg(), 'dub_cancel');
    const dataDir = env.TAKELINE_DATA_DIR!;
    const pool = openPostgresPool(env.TAKELINE_DATABASE_URL!, 1);
    let api: ServiceProcess | null = null;
    let worker: Worker | null = null;
    try {
      api = await startServiceProcess({ dataDir, env });
      worker = await startWorker(env);
      const svc = api;
      const headers = { Authorization: `Bearer ${svc.key}` };
      const sessionId = await createSession(svc);
      await sessionSettled(svc, sessionId);
      const dir = tempDir('takeline-team-dub-audio-');
      const master = fs.readFileSync(dubMaster(dir, 60, { rate: 16000, channels: 1, codec: 'pcm_s16le' }));
      const lines = referenceLines(60);

      /** A dub with every line corrected (a revoice long enough to be stopped), its revoice started and running on the worker. */
      const runningRevoice = async () => {
        const created = await uploadDub(svc, sessionId, [
          { name: 'file', file: master, filename: 'dub.wav' },
          { name: 'lines', value: JSON.stringify(lines) },
        ]);
        expect(created.status).toBe(201);
        const dubId = created.json().id as string;
        const base = `${svc.url}/v1/speech/transcriptions/${sessionId}/dubs/${dubId}`;
        for (const [i, line] of lines.entries()) {
          const res = await fetch(`${base}/lines/${i + 1}`, { method: 'PATCH', headers: { ...headers, 'Content-Type': 'application/json' }, body: JSON.stringify({ text: `${line.text.split(' ').slice(0, 8).join(' ')}.` }) });
          expect(res.status).toBe(200);
        }
        const started = await fetch(`${base}/revoice?wait=0`, { method: 'POST', headers });
        expect(started.status).toBe(202);
        const revoiceId = (await started.json()).id as string;
        const jobId = (await pool.query('SELECT job_id FROM dub_revoices WHERE id = $1', [revoiceId])).rows[0].job_id as string;
        // Running on the worker, with at least one line rendered and not all of them.
        const rendered = await until(async () => (await pool.query('SELECT count(*)::int AS n FROM dub_revoice_lines WHERE revoice_id = $1', [revoiceId])).rows[0].n as number, (n) => n >= 1);
        expect(rendered, 'the worker rendered a line').toBeGreaterThanOrEqual(1);
        expect(worker!.output()).toContain(`job ${jobId} (dub-revoice) started, attempt 1`);
        const done = (await pool.query('SELECT count(*)::int AS n FROM dub_revoice_lines WHERE revoice_id = $1', [revoiceId])).rows[0].n as number;
        expect(done).toBeLessThan(lines.length);
        return { dubId, jobId, folder: path.join(dataDir, 'recordings', sessionId, 'dubs', dubId) };
      };
      const job = async (id: string) => (await pool.query('SELECT status, finished_at FROM jobs WHERE id = $1', [id])).rows[0] as { status: string; finished_at: string | null };

      // 1. Deleting the dub: the API node cancels the job; the worker stops it, records that, and only then are the files removed.
      const first = await runningRevoice();
      expect(fs.existsSync(path.join(first.folder, 'work'))).toBe(true);
      const asked = Date.now();
      const deleted = await fetch(`${svc.url}/v1/speech/transcriptions/${sessionId}/dubs/${first.dubId}`, { method: 'DELETE', headers });
      expect(deleted.status).toBe(204);
      console.info(`DELETE of a dub mid-revoice answered in ${Date.now() - asked} ms (the worker's job stopped and recorded before it)`);
      const afterDelete = await job(first.jobId);
      expect(afterDelete.status).toBe('cancelled');
      // finished_at is written by the runner that ran the job, once it has stopped: before the DELETE answered.
      expect(afterDelete.finished_at).not.toBeNull();
      expect(fs.existsSync(first.folder)).toBe(false);
      // Nothing of the stopped revoice comes back (no revision written late, no rendered line).
      await new Promise((r) => setTimeout(r, 3000));
      expect(fs.existsSync(first.folder)).toBe(false);
      expect(await job(first.jobId)).toEqual(afterDelete);
      expect(api.output()).not.toMatch(/\(dub-revoice\) started/);

      // 1b. Deleting a dub while it is still preparing (uploaded without lines: the worker transcribes it) cancels
      // its preparation job on the worker the same way.
      const preparing = await uploadDub(svc, sessionId, [{ name: 'file', file: master, filename: 'dub.wav' }]);
      expect(preparing.status).toBe(201);
      const preparingId = preparing.json().id as string;
      const prepareJob = await until(
        async () =>
          (await pool.query("SELECT id FROM jobs WHERE kind = 'dub-prepare' AND status = 'running' AND payload_json LIKE $1", [`%${preparingId}%`])).rows[0]?.id as
            | string
            | undefined,
        (id) => id !== undefined,
      );
      expect(prepareJob, 'the preparation is running').toBeDefined();
      await until(async () => worker!.output().includes(`job ${prepareJob} (dub-prepare) started`), (seen) => seen);
      const dropped = await fetch(`${svc.url}/v1/speech/transcriptions/${sessionId}/dubs/${preparingId}`, { method: 'DELETE', headers });
      expect(dropped.status).toBe(204);
      const prepared = await job(prepareJob!);
      expect(prepared.status).toBe('cancelled');
      expect(prepared.finished_at, 'the worker stopped the preparation before the DELETE answered').not.toBeNull();
      expect(fs.existsSync(path.join(dataDir, 'recordings', sessionId, 'dubs', preparingId))).toBe(false);
      expect((await pool.query('SELECT count(*)::int AS n FROM dubs WHERE id = $1', [preparingId])).rows[0].n).toBe(0);

      // 2. Deleting the recording stops a revoice of one of its dubs the same way.
      // The job's row goes with the recording, so it is watched while the DELETE is under way: the last state seen
      // is the worker's record that it stopped the job (the API node deletes the rows only after that).
      const second = await runningRevoice();
      const deleteStarted = Date.now();
      let answered = false;
      const deleting = fetch(`${svc.url}/v1/speech/transcriptions/${sessionId}`, { method: 'DELETE', headers }).finally(() => (answered = true));
      let lastSeen: Awaited<ReturnType<typeof job>> | undefined;
      while (!answered) {
        lastSeen = (await job(second.jobId)) ?? lastSeen;
        await new Promise((r) => setTimeout(r, 20));
      }
      expect((await deleting).status).toBe(204);
      // The worker's record of the stop may live only a moment before the rows go (too short for this poll on a
      // loaded machine): that the DELETE did not wait out the API node's 30-s limit says the worker recorded it.
      expect(lastSeen).toMatchObject({ status: 'cancelled' });
      expect(Date.now() - deleteStarted).toBeLessThan(30_000);
      expect(await job(second.jobId)).toBeUndefined();
      expect(fs.existsSync(path.join(dataDir, 'recordings', sessionId))).toBe(false);
      await new Promise((r) => setTimeout(r, 3000));
      expect(fs.existsSync(path.join(dataDir, 'recordings', sessionId))).toBe(false);

      // 3. The worker carries on: a new recording's dub revoices to the end.
      expect([worker.child.exitCode, worker.child.signalCode], "the worker is still running").toEqual([null, null]);
      const next = await createSession(svc);
      await sessionSettled(svc, next);
      const created = await uploadDub(svc, next, [
        { name: 'file', file: fs.readFileSync(dubMaster(dir, 20, { rate: 16000, channels: 1, codec: 'pcm_s16le', name: 'short.wav' })), filename: 'short.wav' },
        { name: 'lines', value: JSON.stringify(referenceLines(20)) },
      ]);
      const dubId = created.json().id as string;
      const api2 = (p: string, init: RequestInit = {}) => fetch(`${svc.url}/v1/speech/transcriptions/${next}/dubs${p}`, { ...init, headers: { ...headers, 'Content-Type': 'application/json' } });
      expect((await api2(`/${dubId}/lines/1`, { method: 'PATCH', body: JSON.stringify({ text: 'Printing is an art.' }) })).status).toBe(200);
      expect((await revoiceToEnd(api2, dubId)).status).toBe('complete');
    } finally {
      await pool.end();
      await worker?.stop().catch(() => {});
      await api?.stop();
    }
  });
});
