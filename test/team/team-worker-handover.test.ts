import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { audioDir } from '../helpers/paths';
import { until } from '../helpers/poll';
import { startPostgres, type ThrowawayPostgres } from '../helpers/postgres';
import { multipartBody, rawRequest, startServiceProcess, type ServiceProcess } from '../helpers/service';
import { startWorker, teamEnv, teamQuery, workerRunning, type Worker } from '../helpers/team';
import { tempDir } from '../helpers/temp';
import { joinClips } from '../helpers/two-readers';

/**
 * A team with one API node and two workers: one worker is busy with a long transcription when the other is killed
 * with kill -9 in the middle of its own. pg-boss notices the dead worker's heartbeats stop and holds its job for
 * another; until one takes it, the recording reads `waiting for a worker` (not `running` at a standstill), and
 * then it is transcribed exactly once by the worker that comes free.
 */
let pg: ThrowawayPostgres;
let env: Record<string, string>;
let api: ServiceProcess;
const workers: Worker[] = [];

const auth = () => ({ Authorization: `Bearer ${api.key}` });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** pg-boss's heartbeat (10 s) and supervision (2 s), the API node's look (2 s), and room for a loaded machine. */
const HAND_OVER_MS = 40_000;

beforeAll(async () => {
  pg = await startPostgres();
  env = await teamEnv(pg, 'team_handover');
  api = await startServiceProcess({ dataDir: env.TAKELINE_DATA_DIR, env });
  for (let i = 0; i < 2; i++) workers.push(await startWorker(env));
}, 360_000);
afterAll(async () => {
  for (const w of workers) await w.stop().catch(() => {});
  await api?.stop();
  await pg?.stop();
});

async function upload(file: string, name: string): Promise<string> {
  const { body, contentType } = multipartBody([
    { name: 'project_key', value: 'handover' },
    { name: 'file', file: fs.readFileSync(file), filename: name },
  ]);
  const res = await rawRequest(`${api.url}/v1/speech/transcriptions`, { method: 'POST', headers: { ...auth(), 'Content-Type': contentType }, body });
  expect(res.status).toBe(201);
  return res.json().id as string;
}

const transcribeJobs = (sessionId: string) =>
  teamQuery<{ id: string; status: string; attempts: number; stage: string | null }>(
    env.TAKELINE_DATABASE_URL!,
    "SELECT id, status, attempts, stage FROM jobs WHERE kind = 'transcribe' AND session_id = $1 ORDER BY seq",
    [sessionId],
  );
const session = async (id: string) => (await (await fetch(`${api.url}/v1/speech/transcriptions/${id}`, { headers: auth() })).json()) as { status: string; stage: string | null; progress: number };

describe('team server: a job whose worker was killed', { timeout: 900_000 }, () => {
  it('reads as waiting for a worker while the other worker is busy, then is finished once by it', async () => {
    // The busy worker's long job: every test utterance end to end (about 14 minutes of speech).
    const longId = await upload(path.join(audioDir, 'long', fs.readdirSync(path.join(audioDir, 'long')).find((f) => f.endsWith('.flac'))!), 'long.flac');
    const [longJob] = await until(() => transcribeJobs(longId), (rows) => rows.length === 1);
    const busy = await workerRunning(workers, longJob!.id, 1);

    const file = joinClips(tempDir('takeline-handover-'), 'readings.flac', [
      'ljspeech_LJ001-0001', 'amateur_LJ001-0010', 'ljspeech_LJ001-0003',
    ]);
    const id = await upload(file, 'readings.flac');
    const [job] = await until(() => transcribeJobs(id), (rows) => rows.length === 1);
    const victim = await workerRunning(workers, job!.id, 1);
    expect(victim).not.toBe(busy);
    await until(() => session(id), (s) => s.status === 'running', 60_000);
    await victim.kill();
    const killedAt = Date.now();
    workers.splice(workers.indexOf(victim), 1);

    // Before the hand-over time it may still read running; within it, it says what it waits for.
    const waiting = await until(() => session(id), (s) => s.stage === 'waiting for a worker', HAND_OVER_MS);
    const waitedMs = Date.now() - killedAt;
    expect(waiting.status).toBe('running');
    expect(await transcribeJobs(id)).toEqual([{ id: job!.id, status: 'running', attempts: 1, stage: 'waiting for a worker' }]);
    // Still so while the other worker is busy: nothing has taken it.
    await sleep(4000);
    expect((await session(id)).stage).toBe('waiting for a worker');
    expect(busy.output()).not.toMatch(new RegExp(`job ${job!.id} \\(\\S+\\) started, attempt 2`));
    console.log(`the killed worker's job read "waiting for a worker" ${(waitedMs / 1000).toFixed(1)} s after the kill`);

    // The long recording is deleted: its worker comes free and takes the waiting job over.
    expect((await fetch(`${api.url}/v1/speech/transcriptions/${longId}`, { method: 'DELETE', headers: auth() })).status).toBe(204);
    expect(await workerRunning(workers, job!.id, 2, 120_000)).toBe(busy);
    const taken = await until(() => session(id), (s) => s.stage !== 'waiting for a worker', 60_000);
    expect(taken.stage).not.toBe('waiting for a worker');
    const done = await until(() => session(id), (s) => s.status === 'complete' || s.status === 'failed', 480_000);
    expect(done.status, busy.output().split('\n').slice(-40).join('\n')).toBe('complete');
    // Exactly once: one job, complete on its second attempt, and started by no other worker. The recording reads
    // complete once its transcript is stored; the job's record follows when the job's last steps are done.
    await until(() => transcribeJobs(id), (rows) => rows[0]!.status !== 'running', 120_000);
    expect(await transcribeJobs(id)).toEqual([expect.objectContaining({ id: job!.id, status: 'complete', attempts: 2 })]);
    expect(busy.output().match(new RegExp(`job ${job!.id} \\(\\S+\\) started`, 'g'))).toHaveLength(1);
  });
});
