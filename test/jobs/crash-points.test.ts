import crypto from 'node:crypto';
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
import { waitFor } from '../helpers/crash';
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
