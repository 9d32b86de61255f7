import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { multipartBody, rawRequest, startServiceProcess, type ServiceProcess } from '../helpers/service';
import { audioDir } from '../helpers/paths';
import { tempDir } from '../helpers/temp';
import { listProcesses } from '../../src/service/jobs/stale-processes';
import { inspectDatabase, integrityCheck, sha256, slowUpload, temporaryFiles, waitFor } from '../helpers/crash';

/** kill -9 at chosen points: the CI tier of the crash harness (`npm run bench -- reliability` repeats it at random points). */
describe('kill -9 during work', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup().catch(() => undefined);
  });

  it('resumes a transcription from its checkpoints through three kills between chunks and one once the diarization speech is kept, and completes it exactly once', { timeout: 600_000 }, async () => {
    // A minute of real conversation (the 30-s sample twice): enough chunks for three kills between them.
    const file = path.join(tempDir('takeline-crash-'), 'two-calls.flac');
    const sample = path.join(audioDir, 'diarization', 'sample.flac');
    spawnSync('ffmpeg', ['-v', 'error', '-i', sample, '-i', sample, '-filter_complex', 'concat=n=2:v=0:a=1', file]);
    let svc: ServiceProcess = await startServiceProcess();
    // A failure must not leave a service running on (it would transcribe on after the test).
    cleanups.push(() => svc.kill());
    const auth = { Authorization: `Bearer ${svc.key}` };
    const { body, contentType } = multipartBody([{ name: 'project_key', value: 'crash' }, { name: 'file', file: fs.readFileSync(file), filename: 'calls.flac' }]);
    const upload = await rawRequest(`${svc.url}/v1/speech/transcriptions`, { method: 'POST', headers: { ...auth, 'Content-Type': contentType }, body });
    expect(upload.status).toBe(201);
    const id = upload.json().id;
    const session = async () => (await (await fetch(`${svc.url}/v1/speech/transcriptions/${id}`, { headers: auth })).json()) as { status: string; progress: number; error: string | null };

    // An earlier version failed the job for good at the third kill ("interrupted too many times"), each run starting from 0.
    // Each kill comes once the run has checkpointed a chunk more than the last one kept.
    const checkpoints = () => inspectDatabase(svc.dataDir, (db) => (db.prepare('SELECT count(*) AS n FROM transcription_checkpoints').get() as { n: number }).n);
    const resumedWith: number[] = [];
    let kept = 0;
    for (let kill = 0; kill < 3; kill++) {
      await waitFor(async () => {
        const s = await session();
        // The service's log says why (a decoder's watchdog on a CPU-starved host, say).
        if (s.status === 'failed' || s.status === 'complete') throw new Error(`job ${s.status} before kill ${kill + 1} (kept ${resumedWith.join(', ')}): ${s.error}\n${svc.output().slice(-1500)}`);
        return checkpoints() > kept;
      }, `a new checkpoint before kill ${kill + 1}`, 300_000, 20);
      // The decoders' working folders (audio of the user's recording) at the moment of the kill.
      const scratch = path.join(svc.dataDir, 'scratch');
      const working = fs.readdirSync(scratch).map((name) => path.join(scratch, name));
      await svc.kill();
      kept = checkpoints();
      svc = await startServiceProcess({ dataDir: svc.dataDir });
      const resumed = await waitFor(async () => /resuming with (\d+) recognized chunks kept/.exec(svc.output())?.[1], 'the resume line', 60_000).catch(async (error: Error) => {
        // The job's state and the restarted service's log say where it stopped.
        throw new Error(`${error.message} after kill ${kill + 1} (kept ${kept}): ${JSON.stringify(await session())}\n${svc.output().slice(-3000)}`);
      });
      resumedWith.push(Number(resumed));
      expect(Number(resumed)).toBe(kept);
      // The killed service's decoders were stopped and their folders removed by the restart.
      expect(working.filter((dir) => fs.existsSync(dir))).toEqual([]);
      expect(listProcesses().filter((p) => p.argv.some((a) => working.some((dir) => a.startsWith(dir))))).toEqual([]);
    }
    // A fourth kill once diarization has its speech spans (a pass over the whole recording; it starts
    // beside the last recognitions): the resumed run keeps them and its chunks, and says so.
    const stages = () => inspectDatabase(svc.dataDir, (db) => (db.prepare('SELECT stage FROM transcription_stage_checkpoints ORDER BY stage DESC').all() as Array<{ stage: string }>).map((r) => r.stage));
    await waitFor(async () => {
      const s = await session();
      if (s.status === 'failed' || s.status === 'complete') throw new Error(`job ${s.status} before the diarization kill: ${s.error}\n${svc.output().slice(-1500)}`);
      return stages().includes('diarization-speech');
    }, 'the diarization speech checkpoint', 300_000, 20);
    await svc.kill();
    const keptStages = stages();
    kept = checkpoints();
    svc = await startServiceProcess({ dataDir: svc.dataDir });
    const line = await waitFor(async () => /resuming with (\d+) recognized chunks kept, ([a-z -]+) kept/.exec(svc.output()), 'the resume line', 60_000);
    expect(Number(line[1])).toBe(kept);
    expect(line[2]).toBe(keptStages.join(' and '));

    const done = await waitFor(async () => {
      const s = await session();
      return s.status === 'complete' || s.status === 'failed' ? s : null;
    }, 'completion', 300_000, 250);
    expect(done.status).toBe('complete');
    // Each restart recognized only what the previous runs had not: the kept chunks grow.
    expect(resumedWith[0]).toBeGreaterThan(0);
    for (let i = 1; i < resumedWith.length; i++) expect(resumedWith[i]).toBeGreaterThan(resumedWith[i - 1]!);
    const transcript = (await (await fetch(`${svc.url}/v1/speech/transcriptions/${id}`, { headers: auth })).json()).transcript as { speakers: string[]; segments: Array<{ speaker: string }> };
    expect(transcript.speakers.length).toBeGreaterThan(0);
    expect(transcript.segments.every((seg) => transcript.speakers.includes(seg.speaker))).toBe(true);

    const page = await (await fetch(`${svc.url}/v1/speech/transcriptions?project=crash`, { headers: auth })).json();
    expect(page.total).toBe(1);
    await svc.stop();
    inspectDatabase(svc.dataDir, (db) => {
      expect(db.prepare("SELECT status, count(*) AS n FROM jobs WHERE kind = 'transcribe' GROUP BY status").all()).toEqual([{ status: 'complete', n: 1 }]);
      expect(db.prepare('SELECT count(*) AS n FROM transcription_checkpoints').get()).toEqual({ n: 0 });
      expect(db.prepare('SELECT count(*) AS n FROM transcription_stage_checkpoints').get()).toEqual({ n: 0 });
    });
    expect(integrityCheck(svc.dataDir)).toBe('ok');
    expect(temporaryFiles(svc.dataDir)).toEqual([]);
  });

  it('keeps acknowledged uploads byte for byte and leaves no trace of one cut off by a kill', { timeout: 120_000 }, async () => {
    let svc = await startServiceProcess();
    cleanups.push(() => svc.kill());
    const auth = { Authorization: `Bearer ${svc.key}` };
    const audio = fs.readFileSync(path.join(audioDir, 'asr', 'amateur_LJ001-0001.flac'));
    const first = multipartBody([{ name: 'project_key', value: 'up' }, { name: 'file', file: audio, filename: 'kept.flac' }]);
    const kept = (await rawRequest(`${svc.url}/v1/speech/transcriptions`, { method: 'POST', headers: { ...auth, 'Content-Type': first.contentType }, body: first.body })).json();
    const cut = multipartBody([{ name: 'project_key', value: 'up' }, { name: 'file', file: Buffer.concat([audio, audio, audio]), filename: 'cut.flac' }]);
    await slowUpload(svc.url, svc.key, cut.body, cut.contentType, Math.floor(cut.body.length / 2));
    await waitFor(async () => fs.readdirSync(path.join(svc.dataDir, 'uploads')).length > 0, 'the upload to reach the disk', 10_000, 20);
    await svc.kill();

    svc = await startServiceProcess({ dataDir: svc.dataDir });
    const page = await (await fetch(`${svc.url}/v1/speech/transcriptions?project=up`, { headers: auth })).json();
    expect(page.data.map((s: { id: string }) => s.id)).toEqual([kept.id]);
    expect(sha256(path.join(svc.dataDir, 'recordings', kept.id, 'original.flac'))).toBe(sha256(audio));
    expect(temporaryFiles(svc.dataDir)).toEqual([]);
    await svc.stop();
    expect(integrityCheck(svc.dataDir)).toBe('ok');
  });
});
