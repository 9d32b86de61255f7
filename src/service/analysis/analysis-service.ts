import crypto from 'node:crypto';
import type { Db } from '../storage/database';
import type { SessionStore } from '../storage/session-store';
import type { JobRunner } from '../jobs/job-runner';
import type { AnalysisRun, Intelligence } from '../../shared/schemas/analysis';
import { NotFoundError } from '../errors';
import type { AnalysisStore, RunRecord } from '../storage/analysis-store';
import { buildIntelligence } from './document';
import { ANALYSIS_JOB } from './analysis-job';
import { ANALYSIS_VERSION } from './stages';

export function publicRun(run: RunRecord): AnalysisRun {
  return {
    run_id: run.run_id,
    session_id: run.session_id,
    status: run.status,
    stage: run.stage,
    progress: run.progress,
    version: run.version,
    error: run.error,
    created_at: run.created_at,
    started_at: run.started_at,
    completed_at: run.completed_at,
  };
}

/** What the routes and the transcription jobs ask of the analysis: queue a run, read its document. */
export class AnalysisService {
  constructor(
    private readonly db: Db,
    private readonly store: AnalysisStore,
    private readonly sessions: SessionStore,
    private readonly jobs: JobRunner,
  ) {}

  /**
   * Queues a run for a transcribed session, or returns the one already queued or running. Row and job are
   * written in one transaction (callers completing a transcript wrap both writes in theirs), which is why
   * this stays synchronous on the embedded database: with the job queue, until the queue is async.
   * `duration` is the recording's, read by the caller in its own transaction.
   */
  queue(sessionId: string, duration: number): { run: RunRecord; created: boolean } {
    return this.db.transaction(() => {
      const active = this.store.withJobQueue.latest(sessionId, ['queued', 'running']);
      if (active) return { run: active, created: false };
      return { run: this.createRun(sessionId, duration), created: true };
    })();
  }

  /**
   * After the transcript was edited: a queued run reads the new transcript when it starts, but a running one
   * read the old one, so another run is queued behind it.
   */
  queueAfterEdit(sessionId: string, duration: number): { run: RunRecord; created: boolean } {
    return this.db.transaction(() => {
      const queued = this.store.withJobQueue.latest(sessionId, ['queued']);
      if (queued) return { run: queued, created: false };
      return { run: this.createRun(sessionId, duration), created: true };
    })();
  }

  private createRun(sessionId: string, duration: number): RunRecord {
    // The job names the run, so the run's id comes first; both rows are written in the caller's transaction.
    const id = crypto.randomUUID();
    const jobId = this.jobs.enqueue(ANALYSIS_JOB, sessionId, { run_id: id });
    return this.store.withJobQueue.create({ id, sessionId, duration, version: ANALYSIS_VERSION, jobId });
  }

  /** Raised by every write to the session's analysis (kept in the database): part of its analysis document's ETag. */
  revision(sessionId: string): Promise<number> {
    return this.store.revision(sessionId);
  }

  /** 404 unless `runId` is one of the session's runs (checked before a 304 is answered for it). */
  async assertRun(sessionId: string, runId: string): Promise<void> {
    const run = await this.store.run(runId);
    if (!run || run.session_id !== sessionId) throw new NotFoundError('Analysis run not found for this recording.');
  }

  async runs(sessionId: string): Promise<AnalysisRun[]> {
    return (await this.store.runs(sessionId)).map(publicRun);
  }

  /**
   * The `intelligence` object: the newest run, or a run asked for by id. When the newest run failed and an
   * earlier one completed, the complete document is served with `last_failure` naming the failed run, so a
   * failed re-run never hides the results the user already had.
   */
  async intelligence(sessionId: string, runId?: string): Promise<Intelligence> {
    const summary = await this.sessions.summary(sessionId);
    if (!summary) throw new NotFoundError('Transcription session not found.');
    const lines = summary.status === 'complete' ? await this.sessions.segmentCount(sessionId) : 0;
    let run: RunRecord | null;
    let lastFailure: Intelligence['last_failure'] = null;
    if (runId !== undefined) {
      run = await this.store.run(runId);
      if (!run || run.session_id !== sessionId) throw new NotFoundError('Analysis run not found for this recording.');
    } else {
      run = await this.store.latest(sessionId);
      if (run?.status === 'failed') {
        const complete = await this.store.latest(sessionId, ['complete']);
        if (complete) {
          lastFailure = { run_id: run.run_id, error: run.error ?? 'The analysis failed.', failed_at: run.completed_at ?? run.created_at };
          run = complete;
        }
      }
    }
    return buildIntelligence({
      duration: summary.duration,
      transcriptLines: lines,
      awaitingTranscript: summary.status === 'queued' || summary.status === 'running',
      unavailable: summary.status === 'complete' && lines === 0 ? 'The recording has no speech to analyse.' : null,
      run,
      parts: run ? await this.store.parts(run.run_id) : {},
      lines: run ? await this.store.lines(run.run_id) : [],
      lastFailure,
    });
  }
}
