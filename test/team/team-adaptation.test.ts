import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { pocketSphinxAvailable } from '../../src/service/speech/recognition/pocketsphinx-recognizer';
import { resolveSphinxtrain } from '../../src/service/speech/recognition/pocketsphinx/adaptation';
import { audioDir } from '../helpers/paths';
import { postgresPerFile } from '../helpers/postgres-per-file';
import { multipartBody, rawRequest, startServiceProcess, type ServiceProcess } from '../helpers/service';
import { startWorker, teamEnv, teamQuery, type Worker } from '../helpers/team';
import { tempDir } from '../helpers/temp';
import { until } from '../helpers/poll';

const pg = postgresPerFile();

/** Every file under `dir`, relative to it. */
function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => path.relative(dir, path.join(e.parentPath, e.name)));
}

// Team nodes share the database and the storage, not a data folder. Speaker adaptation's state is in
// PostgreSQL and its files on the storage, so what one worker learnt of a speaker another decodes with.
describe.skipIf(!pocketSphinxAvailable().ok || !resolveSphinxtrain())('team mode: speaker adaptation across workers with their own data folders', () => {
  it('adapts a speaker on worker A, shows the summary from an API node, and worker B (another data folder) decodes the next recording with it', { timeout: 900_000 }, async () => {
    const env = await teamEnv(pg(), 'team_adaptation');
    const storage = tempDir('takeline-team-storage-');
    // A transform from one short recording, so the test sees it; the storage every node reaches; no shared data folder.
    const shared = { ...env, TAKELINE_STORAGE_URL: pathToFileURL(storage).href, TAKELINE_ADAPTATION_MIN_SECONDS: '3' };
    const apiDir = tempDir('takeline-team-api-');
    const dirA = tempDir('takeline-team-worker-a-');
    const dirB = tempDir('takeline-team-worker-b-');
    let api: ServiceProcess | null = null;
    const workers: Worker[] = [];
    try {
      api = await startServiceProcess({ dataDir: apiDir, env: { ...shared, TAKELINE_DATA_DIR: apiDir } });
      const svc = api;
      const auth = { Authorization: `Bearer ${svc.key}` };
      const upload = async (file: string) => {
        const { body, contentType } = multipartBody([
          { name: 'project_key', value: 'voices' },
          { name: 'file', file: fs.readFileSync(path.join(audioDir, 'asr', file)), filename: file },
        ]);
        const res = await rawRequest(`${svc.url}/v1/speech/transcriptions`, { method: 'POST', headers: { ...auth, 'Content-Type': contentType }, body });
        expect(res.status).toBe(201);
        return res.json().id as string;
      };
      const settled = (id: string) =>
        until(
          async () => (await fetch(`${svc.url}/v1/speech/transcriptions/${id}`, { headers: auth })).json(),
          (s) => s.status === 'complete' || s.status === 'failed',
          300_000,
        );
      const project = async () =>
        (await (await fetch(`${svc.url}/v1/speech/projects/voices`, { headers: auth })).json()) as { id: string; speakers: Array<{ id: string; adaptation: { seconds: number; recordings: number } | null }> };

      // Worker A alone: it transcribes the first recording and adapts its speaker.
      const workerA = await startWorker({ ...shared, TAKELINE_DATA_DIR: dirA });
      workers.push(workerA);
      const first = await upload('amateur_LJ001-0001.flac');
      expect((await settled(first)).status).toBe('complete');
      // The API node (which runs no job and has no adaptation files) shows the summary from the shared state.
      const learnt = await until(project, (p) => p.speakers[0]?.adaptation !== null && p.speakers[0]?.adaptation !== undefined, 300_000);
      const speaker = learnt.speakers[0]!;
      expect(speaker.adaptation).toMatchObject({ recordings: 1 });
      expect(speaker.adaptation!.seconds).toBeGreaterThan(3);
      expect(workerA.output()).toMatch(/\(speaker-adaptation\) started, attempt 1/);
      expect(workerA.output()).toMatch(/adaptation: speaker \S+ from 1 recordings/);
      // Its files are on the storage, under the speaker's prefix, and in no data folder.
      expect(filesUnder(path.join(storage, 'adaptation', learnt.id, speaker.id)).some((f) => f.endsWith('transform.mllr'))).toBe(true);
      for (const dir of [apiDir, dirA]) expect(filesUnder(path.join(dir, 'adaptation')).filter((f) => f.startsWith(learnt.id))).toEqual([]);
      const [row] = await teamQuery<{ version: number }>(env.TAKELINE_DATABASE_URL!, 'SELECT version FROM speaker_adaptations WHERE speaker_id = $1', [speaker.id]);
      expect(Number(row!.version)).toBeGreaterThanOrEqual(1);
      await workerA.stop();

      // Worker B, with a data folder of its own, transcribes the reader's next recording with that adaptation.
      const workerB = await startWorker({ ...shared, TAKELINE_DATA_DIR: dirB });
      workers.push(workerB);
      const next = await upload('amateur_LJ001-0010.flac');
      const done = await settled(next);
      expect(done.status, done.error ?? '').toBe('complete');
      expect(workerB.output()).toMatch(/\(transcribe\) started, attempt 1/);
      expect(done.transcript.adaptation.speakers).toEqual([expect.objectContaining({ speaker_id: speaker.id })]);
      expect(done.transcript.text.split(/\s+/).length).toBeGreaterThan(5);
      // B's adaptation job then adds the second recording to what A left (the state's version rises, nothing lost).
      const both = await until(project, (p) => (p.speakers.find((s) => s.id === speaker.id)?.adaptation?.recordings ?? 0) >= 2, 300_000);
      expect(both.speakers.find((s) => s.id === speaker.id)!.adaptation!.recordings).toBe(2);
    } finally {
      for (const w of workers) await w.stop().catch(() => {});
      await api?.stop();
    }
  });
});
