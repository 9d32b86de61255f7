import crypto from 'node:crypto';
import type { Database, Stores } from '../storage/stores';
import type { SessionStore } from '../storage/session-store';
import type { JobQueue } from '../jobs/job-runner';
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
    private readonly database: Database,
    private readonly store: AnalysisStore,
    private readonly sessions: SessionStore,
    private readonly jobs: JobQueue,
  ) {}

  /**
   * Queues a run for a transcribed session, or returns the one already queued or running. Row and job are
   * written in one transaction: the caller's when it passes its transaction's stores (completing a transcript
   * stores it, and queues its analysis, in one), else one of its own. `duration` is the recording's.
   */
  queue(sessionId: string, duration: number, within?: Stores): Promise<{ run: RunRecord; created: boolean }> {
    return this.inTransaction(within, async (stores) => {
      // Two nodes asking at once would each find no active run and make one: they take turns on the recording.
      await stores.sessions.lock(sessionId);
      const active = await stores.analysis.latest(sessionId, ['queued', 'running']);
      if (active) return { run: active, created: false };
      return { run: await this.createRun(stores, sessionId, duration), created: true };
    });
  }

  /**
   * After the transcript was edited: a queued run reads the new transcript when it starts, but a running one
   * read the old one, so another run is queued behind it.
   */
  queueAfterEdit(sessionId: string, duration: number, within?: Stores): Promise<{ run: RunRecord; created: boolean }> {
    return this.inTransaction(within, async (stores) => {
      await stores.sessions.lock(sessionId);
      const queued = await stores.analysis.latest(sessionId, ['queued']);
      if (queued) return { run: queued, created: false };
      return { run: await this.createRun(stores, sessionId, duration), created: true };
    });
  }

  private inTransaction<T>(within: Stores | undefined, work: (stores: Stores) => Promise<T>): Promise<T> {
    return within ? work(within) : this.database.transaction(work);
  }

  private async createRun(stores: Stores, sessionId: string, duration: number): Promise<RunRecord> {
    // The job names the run, so the run's id comes first; both rows are written in the same transaction.
    const id = crypto.randomUUID();
    const jobId = await this.jobs.enqueue(ANALYSIS_JOB, sessionId, { run_id: id }, stores.jobs);
    return stores.analysis.create({ id, sessionId, duration, version: ANALYSIS_VERSION, jobId });
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
