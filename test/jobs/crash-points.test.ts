import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { registerAnalysisJob, ANALYSIS_JOB } from '../../src/service/analysis/analysis-job';
import { crashPoints } from '../../src/service/jobs/crash-points';
import { SETTLED } from '../../src/service/jobs/job-record';
import { JobRunner } from '../../src/service/jobs/job-runner';
import { QueueWorker } from '../../src/service/queue/queue-worker';
import type { Transcript } from '../../src/service/speech/types';
import { SqlChunkCheckpointStore } from '../../src/service/storage/chunk-checkpoint-store';
import { SqlJobStore } from '../../src/service/storage/job-store';
import type { Sql } from '../../src/service/storage/sql/sql';
import { openStores, type Database } from '../../src/service/storage/stores';
import { TRANSCRIBE_JOB } from '../../src/service/recordings/intake';
import { registerTranscribeJob, type TranscribeJobDeps } from '../../src/service/transcription/transcribe-job';
import { DUB_REVOICE_JOB, registerRevoiceJob } from '../../src/service/dubbing/revoice-job';
import { registerTakesJob } from '../../src/service/dubbing/takes-job';
import { DUB_TAKES_JOB } from '../../src/service/dubbing/takes';
import { DUB_CONVERT_JOB, registerPrepareJob } from '../../src/service/dubbing/prepare-job';
import { dubKeys, type DubFiles } from '../../src/service/dubbing/dub-files';
import { encodeWav } from '../../src/service/media/wav';
import { SqlDubStore, type NewDub } from '../../src/service/storage/dub-store';
import { waitFor } from '../helpers/crash';
import { tempDir } from '../helpers/temp';
import { eachBackend } from '../helpers/sql-backends';

function transcript(text: string): Transcript {
  const words = [{ word: text, start: 0.1, end: 0.5, speaker: 'S1', confidence: 0.9 }];
  return { language: 'en', duration: 1, text, segments: [{ id: 0, speaker: 'S1', start: 0, end: 1, text, words, avgLogprob: -1 }], speakers: ['S1'], engine: 'test' };
}

/**
 * One "process" of a role: the desktop's (SQLite, its in-process worker takes a job at once and recovers
 * interrupted ones at its start) or a team worker's (PostgreSQL, the queue engine delivers a job again when its
 * worker dies: `runDelivered`). A crash point a test arms ends the process there; the next one recovers.
 */
class Process {
  readonly runner: JobRunner;
  private readonly worker: QueueWorker | undefined;

  constructor(
    private readonly sql: Sql,
    register: (runner: JobRunner) => void,
  ) {
    this.worker = sql.dialect === 'postgres' ? new QueueWorker(20) : undefined;
    this.runner = new JobRunner(new SqlJobStore(sql), { worker: this.worker, pollMs: 20 });
    register(this.runner);
  }

  /** Starts the process and runs the job until it settles or the armed `point` crashes it; then the process ends. */
  async run(id: string, point?: string): Promise<void> {
    await this.runner.start();
    if (this.worker) await this.worker.runDelivered(id);
    else {
      const jobs = new SqlJobStore(this.sql);
      await waitFor(async () => (point !== undefined && !crashPoints.isArmed(point)) || SETTLED.has((await jobs.get(id))!.status), `job ${id} to end`, 60_000, 20);
    }
    await this.runner.stop();
  }
}

afterEach(() => crashPoints.disarm());

eachBackend('jobs crashed after each commit point', (backend) => {
  async function recording(database: Database, options: { codec?: null } = {}) {
    const project = await database.projects.create(`p${crypto.randomUUID().slice(0, 8)}`, 'P');
    const id = crypto.randomUUID();
    await database.sessions.insert({ id, projectId: project.id, fileName: 'a.flac', storedName: 'original.flac', duration: 1, format: { container: 'flac', ...options } as never, language: 'en' });
    return id;
  }

  /** The transcription job with a recognizer that counts its runs, and the steps after the store counted too. */
  function transcription(sql: Sql, afterTranscript: () => Promise<void> = () => Promise.resolve()) {
    const database = openStores(sql);
    const counts = { recognised: 0, after: 0 };
    const deps = {
      database,
      sessions: database.sessions,
      projects: database.projects,
      files: { localOriginal: () => Promise.resolve({ path: '/dev/null', release: () => Promise.resolve() }) },
      models: { refresh: () => Promise.resolve(), resolveRecognizer: () => ({ model: { id: 'test' } }) },
      transcription: {
        transcribe: () => {
          counts.recognised++;
          return Promise.resolve(transcript('recognised'));
        },
      },
      adaptation: { decoding: () => Promise.resolve({ speakers: new Map(), release: () => undefined }) },
      checkpoints: new SqlChunkCheckpointStore(sql),
      completeTranscript: (id: string, stored: Transcript) =>
        database.transaction(async (stores) => {
          await stores.sessions.complete(id, stored);
          await stores.revisions.discard(id);
        }),
      log: () => undefined,
    } as unknown as TranscribeJobDeps;
    const register = (runner: JobRunner) =>
      registerTranscribeJob(deps, runner, () => {
        counts.after++;
        return afterTranscript();
      });
    return { database, counts, register };
  }

  it('transcription: crashed after its transcript is stored, it resumes after the store and keeps an edit made meanwhile', async () => {
    const { sql } = backend();
    const { database, counts, register } = transcription(sql);
    const session = await recording(database);
    const job = await new JobRunner(new SqlJobStore(sql), { worker: null }).enqueue(TRANSCRIBE_JOB, session);
    await database.sessions.setProgress(session, 'queued', 0, 'queued');

    crashPoints.arm('transcribe.after-store');
    await new Process(sql, register).run(job, 'transcribe.after-store');
    expect((await database.sessions.summary(session))?.status).toBe('complete');
    expect((await new SqlJobStore(sql).get(job))?.status).toBe('running');
    // The user corrects the stored transcript before the job is taken up again.
    await database.sessions.setTranscript(session, transcript('corrected'));

    await new Process(sql, register).run(job);
    expect((await new SqlJobStore(sql).get(job))?.status).toBe('complete');
    expect((await database.sessions.transcript(session))?.text).toBe('corrected');
    expect((await database.sessions.summary(session))?.status).toBe('complete');
    expect(counts).toEqual({ recognised: 1, after: 1 });
  });

  it('transcription: crashed after its checkpoints are discarded, it runs only what follows, once', async () => {
    const { sql } = backend();
    const { database, counts, register } = transcription(sql);
    const session = await recording(database);
    const job = await new JobRunner(new SqlJobStore(sql), { worker: null }).enqueue(TRANSCRIBE_JOB, session);

    crashPoints.arm('transcribe.after-discard');
    await new Process(sql, register).run(job, 'transcribe.after-discard');
    expect(counts).toEqual({ recognised: 1, after: 0 });
    await new Process(sql, register).run(job);
    expect((await new SqlJobStore(sql).get(job))?.status).toBe('complete');
    expect((await database.sessions.transcript(session))?.text).toBe('recognised');
    expect(counts).toEqual({ recognised: 1, after: 1 });
  });

  it('transcription: a job that fails after its transcript is stored leaves the recording complete', async () => {
    const { sql } = backend();
    const { database, register } = transcription(sql, () => Promise.reject(new Error('enrolment broke')));
    const session = await recording(database);
    const job = await new JobRunner(new SqlJobStore(sql), { worker: null }).enqueue(TRANSCRIBE_JOB, session);
    await new Process(sql, register).run(job);
    expect((await new SqlJobStore(sql).get(job))?.status).toBe('failed');
    expect((await database.sessions.summary(session))?.status).toBe('complete');
  });

  async function analysisRun(sql: Sql, options: { codec?: null; transcript?: boolean }) {
    const database = openStores(sql);
    const session = await recording(database, options.codec === null ? { codec: null } : {});
    if (options.transcript !== false) await database.sessions.complete(session, transcript('words'));
    const run = await database.analysis.create({ sessionId: session, duration: 1, version: 'test' });
    const job = await new JobRunner(new SqlJobStore(sql), { worker: null }).enqueue(ANALYSIS_JOB, session, { run_id: run.run_id });
    await database.analysis.setJob(run.run_id, job);
    const register = (runner: JobRunner) =>
      registerAnalysisJob({ store: database.analysis, sessions: database.sessions, layout: {} as never, files: {} as never, tools: {} as never, modelsDir: null, dictionary: '' }, runner);
    return { database, run: run.run_id, job, register };
  }

  it('analysis: crashed after its run is finished, it is not run again and the run keeps its end', async () => {
    const { sql } = backend();
    const { database, run, job, register } = await analysisRun(sql, { codec: null });
    crashPoints.arm('analysis.after-finish');
    await new Process(sql, register).run(job, 'analysis.after-finish');
    const finished = await database.analysis.run(run);
    expect(finished?.status).toBe('unavailable');
    await new Process(sql, register).run(job);
    expect((await new SqlJobStore(sql).get(job))?.status).toBe('complete');
    // Not finished a second time: the run's revision moves with every write.
    expect(await database.analysis.run(run)).toEqual(finished);
  });

  it("analysis: a crash while its job's failure is recorded leaves neither written; the run and the job fail together on the next run", async () => {
    const { sql } = backend();
    const { database, run, job, register } = await analysisRun(sql, { transcript: false });
    const jobs = new SqlJobStore(sql);
    crashPoints.arm('job.settling');
    await new Process(sql, register).run(job, 'job.settling');
    expect((await jobs.get(job))?.status).toBe('running');
    expect((await database.analysis.run(run))?.status).toBe('queued');
    await new Process(sql, register).run(job);
    expect((await jobs.get(job))?.status).toBe('failed');
    expect((await database.analysis.run(run))?.status).toBe('failed');
  });
});

/**
 * A dub's stored files in a folder: what revoice's assembly reads and writes (revision 1 is a short WAV; the
 * revoice's work files are not there, its plan being empty). `missing`: the revision's file is gone.
 */
function dubFiles(missing = false): DubFiles {
  const dir = tempDir('dub-files-');
  const file = (key: string) => path.join(dir, key.replace(/\//g, '_'));
  let scratch = 0;
  const files = {
    local: (key: string) => {
      if (missing || !fs.existsSync(file(key))) return Promise.reject(new Error(`${key} is missing`));
      return Promise.resolve({ path: file(key), release: () => Promise.resolve() });
    },
    copyOut: (key: string, to: string) => {
      if (!fs.existsSync(file(key))) return Promise.resolve(false);
      fs.copyFileSync(file(key), to);
      return Promise.resolve(true);
    },
    scratchFile: (extension: string) => path.join(dir, `scratch-${++scratch}${extension}`),
    store: (key: string, from: string) => Promise.resolve(fs.copyFileSync(from, file(key))),
    removeWork: () => Promise.resolve(),
    put: (key: string, data: Buffer) => fs.writeFileSync(file(key), data),
  };
  return files as unknown as DubFiles;
}

eachBackend('dub jobs crashed after each commit point', (backend) => {
  async function dub(sql: Sql, status: NewDub['status'] = 'ready') {
    const database = openStores(sql);
    const project = await database.projects.create(`p${crypto.randomUUID().slice(0, 8)}`, 'P');
    const sessionId = crypto.randomUUID();
    await database.sessions.insert({ id: sessionId, projectId: project.id, fileName: 'a.wav', storedName: 'original.wav', duration: 1, format: {} as never, language: 'en' });
    const store = new SqlDubStore(sql);
    const record: NewDub = {
      id: crypto.randomUUID(),
      sessionId,
      name: 'Episode 1',
      fileName: 'episode.wav',
      status,
      sampleRate: 8000,
      channels: 1,
      sampleFormat: 's16',
      frames: 8000,
      background: false,
      defaultVoice: null,
      voices: {},
    };
    await store.insertDub(record, 'r0001.wav');
    return { store, sessionId, dubId: record.id, jobs: new JobRunner(new SqlJobStore(sql), { worker: null }) };
  }

  async function revoice(sql: Sql, missing = false) {
    const { store, sessionId, dubId, jobs } = await dub(sql);
    const files = dubFiles(missing);
    (files as unknown as { put(key: string, data: Buffer): void }).put(dubKeys.revision(sessionId, dubId, 'r0001.wav'), encodeWav(new Float32Array(8000), { sampleRate: 8000, channels: 1, sampleFormat: 's16' }));
    const id = crypto.randomUUID();
    const job = await jobs.enqueue(DUB_REVOICE_JOB, sessionId, { revoice_id: id });
    await store.insertRevoice({ id, dubId, jobId: job, baseRevision: 1, plan: [] });
    const register = (runner: JobRunner) => registerRevoiceJob(runner, { store, files, tools: {} as never, voices: {} as never, aligner: () => null });
    return { store, dubId, id, job, register };
  }

  it('revoice: crashed after its revision is recorded, it is not recorded twice and the revoice stays complete', async () => {
    const { sql } = backend();
    const { store, dubId, id, job, register } = await revoice(sql);
    crashPoints.arm('revoice.after-revision');
    await new Process(sql, register).run(job, 'revoice.after-revision');
    expect((await store.revoice(id))?.status).toBe('complete');
    expect((await new SqlJobStore(sql).get(job))?.status).toBe('running');
    await new Process(sql, register).run(job);
    expect((await new SqlJobStore(sql).get(job))?.status).toBe('complete');
    expect((await store.revisions(dubId)).map((r) => r.number)).toEqual([1, 2]);
    expect((await store.revoice(id))?.status).toBe('complete');
  });

  it("revoice: a crash while its job's failure is recorded leaves it as it was; the revoice and the job fail together on the next run", async () => {
    const { sql } = backend();
    const { store, id, job, register } = await revoice(sql, true);
    const jobs = new SqlJobStore(sql);
    crashPoints.arm('job.settling');
    await new Process(sql, register).run(job, 'job.settling');
    expect((await jobs.get(job))?.status).toBe('running');
    expect((await store.revoice(id))?.status).toBe('running');
    await new Process(sql, register).run(job);
    expect((await jobs.get(job))?.status).toBe('failed');
    expect((await store.revoice(id))?.status).toBe('failed');
  });

  it("takes: a crash while its job's failure is recorded leaves them as they were; the takes and the job fail together on the next run", async () => {
    const { sql } = backend();
    const { store, sessionId, dubId, jobs: queue } = await dub(sql);
    await store.setLines(dubId, [{ id: 1, speaker: 'S1', start: 0, end: 0.5, text: 'hello', voice: null, words: [] }]);
    const job = await queue.enqueue(DUB_TAKES_JOB, sessionId, {});
    const takes = await store.insertTakes(dubId, 1, [{ id: crypto.randomUUID(), jobId: job, voice: 'v', speed: null, plan: {} as never, baseRevision: 1 }]);
    const register = (runner: JobRunner) => registerTakesJob(runner, { store, files: dubFiles(true), tools: {} as never, voices: {} as never, aligner: () => null });
    const jobs = new SqlJobStore(sql);
    crashPoints.arm('job.settling');
    await new Process(sql, register).run(job, 'job.settling');
    expect((await jobs.get(job))?.status).toBe('running');
    expect((await store.takesOfJob(job)).map((t) => t.status)).toEqual(['queued']);
    await new Process(sql, register).run(job);
    expect((await jobs.get(job))?.status).toBe('failed');
    expect((await store.takesOfJob(job)).map((t) => [t.id, t.status])).toEqual([[takes[0]!.id, 'failed']]);
  });

  it('dub preparation: delivered again after it committed, it leaves the ready dub and its lines as they are', async () => {
    const { sql } = backend();
    const { store, sessionId, dubId, jobs: queue } = await dub(sql, 'preparing');
    const job = await queue.enqueue(DUB_CONVERT_JOB, sessionId, { dub_id: dubId, source: 'recording' });
    // The state a crash right after the preparation's commit leaves: the dub ready (its lines since edited), its job running.
    const jobs = new SqlJobStore(sql);
    expect(await jobs.claim(job)).toBe(true);
    await store.setLines(dubId, [{ id: 1, speaker: 'S1', start: 0, end: 0.5, text: 'edited', voice: null, words: [] }]);
    await store.setProgress(dubId, 'ready', 1, 'complete');
    const failing = () => Promise.reject(new Error('converted again'));
    const register = (runner: JobRunner) =>
      registerPrepareJob(runner, { store, files: {} as never, sessions: openStores(sql).sessions, models: {} as never, transcription: {} as never, tools: {} as never, layout: {} as never, stored: { withOriginal: failing } as never });
    await new Process(sql, register).run(job);
    expect((await jobs.get(job))?.status).toBe('complete');
    expect((await store.dubById(dubId))?.status).toBe('ready');
    expect((await store.lines(dubId)).map((l) => l.text)).toEqual(['edited']);
  });

  it("dub preparation: a crash while its job's failure is recorded leaves the dub preparing; it fails with its job on the next run", async () => {
    const { sql } = backend();
    const { store, sessionId, dubId, jobs: queue } = await dub(sql, 'preparing');
    const job = await queue.enqueue(DUB_CONVERT_JOB, sessionId, { dub_id: dubId, source: 'recording' });
    const register = (runner: JobRunner) =>
      registerPrepareJob(runner, { store, files: {} as never, sessions: openStores(sql).sessions, models: {} as never, transcription: {} as never, tools: {} as never, layout: {} as never, stored: {} as never, log: () => undefined });
    const jobs = new SqlJobStore(sql);
    crashPoints.arm('job.settling');
    await new Process(sql, register).run(job, 'job.settling');
    expect((await jobs.get(job))?.status).toBe('running');
    expect((await store.dubById(dubId))?.status).toBe('preparing');
    await new Process(sql, register).run(job);
    expect((await jobs.get(job))?.status).toBe('failed');
    expect((await store.dubById(dubId))?.status).toBe('failed');
  });
});
