import { JobFailure, type JobContext, type JobRecord, type JobRunner } from '../jobs/job-runner';
import { crashPoints } from '../jobs/crash-points';
import type { TransactionScope } from '../storage/transaction-scope';
import { forkModule } from '../module-runners';
import { lowerProcessPriority } from '../jobs/background-priority';
import type { AnalysisStore } from '../storage/analysis-store';
import type { SessionStore } from '../storage/session-store';
import type { DataLayout } from '../storage/files';
import type { StoredFiles } from '../storage/stored-files';
import type { MediaTools } from '../media/tools';
import type { AnalysisMessage, AnalysisRequest } from './protocol';
import { overallProgress, type StageName } from './stages';

export const ANALYSIS_JOB = 'analysis';

/**
 * The analysis process's C heap (glibc; ignored elsewhere). onnxruntime-node runs each model call on one of
 * libuv's pool threads, and each DNSMOS run of the quality stage allocates and frees ~100 MB of activations.
 * By default glibc raises its mmap threshold after each large block is freed, so the next runs' blocks come
 * from the heap, spread over one arena per pool thread, and stay: the process grew ~200 MB over 20 lines of
 * long/. A fixed threshold (128 KiB, glibc's initial one) hands every large block back to the system when
 * freed, and one arena keeps small blocks together: 4 min of long/ peaked at 518 MB before, 252 MB with
 * both (306 MB with one arena alone, 257 MB with the threshold alone; bench/memory/analysis-stages.ts),
 * with the same results.
 */
export const ANALYSIS_PROCESS_ENV: Record<string, string> = { MALLOC_MMAP_THRESHOLD_: '131072', MALLOC_ARENA_MAX: '1' };

export interface AnalysisJobDeps {
  store: AnalysisStore;
  sessions: SessionStore;
  layout: DataLayout;
  /** The recording's original, as a local file for the analysis process. */
  files: StoredFiles;
  tools: MediaTools;
  modelsDir: string | null;
  /** The recognizer's pronunciation dictionary, for syllable counts. */
  dictionary: string;
  log?: (line: string) => void;
}

/**
 * The store's writes of one run, made one after another in the order the process reported them (on
 * PostgreSQL two writes in flight could land in either order). The first failure stops the run: it is
 * thrown at the next write and by `drained()`.
 */
class OrderedWrites {
  private tail: Promise<void> = Promise.resolve();
  private failure: { error: unknown } | null = null;

  add(write: () => Promise<void>): void {
    if (this.failure) throw this.failure.error;
    this.tail = this.tail.then(() => (this.failure ? undefined : write())).catch((error: unknown) => {
      this.failure ??= { error };
    });
  }

  async drained(): Promise<void> {
    await this.tail;
    if (this.failure) throw this.failure.error;
  }
}

/**
 * Runs the request in a child process (analysis-process.ts), handing each message to `onMessage` in order.
 * Settles on the process's last word, its death or the abort, and only after the process has gone.
 */
export async function runAnalysisProcess(
  request: AnalysisRequest,
  onMessage: (m: AnalysisMessage) => void,
  signal: AbortSignal,
): Promise<void> {
  signal.throwIfAborted();
  const child = forkModule('./analysis-process', import.meta.url, [], ANALYSIS_PROCESS_ENV);
  // Deferred work, below a request's decoders: every thread of it, from here at once (its module loading too).
  lowerProcessPriority(child.pid, undefined, true);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let onAbort = () => {};
  try {
    await new Promise<void>((resolve, reject) => {
      onAbort = () => reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      child.on('message', (message: AnalysisMessage) => {
        try {
          if (message.type === 'done') resolve();
          else if (message.type === 'failed') reject(message.forUser ? new JobFailure(message.message) : new Error(message.message));
          else onMessage(message);
        } catch (error) {
          reject(error as Error);
        }
      });
      child.once('error', reject);
      child.once('exit', (code, killedBy) => reject(new Error(`the analysis process exited (${killedBy ?? `code ${code}`})`)));
      child.send(request);
    });
  } finally {
    signal.removeEventListener('abort', onAbort);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    if (child.pid !== undefined) await exited;
  }
}

/**
 * The analysis job: one per run. Its process reports stages, parts and finished lines, which are stored
 * as they come (the run's checkpoints); a later attempt resumes from them. The run follows the job: a failed
 * or cancelled job fails the run with the job's reason, a re-queued job re-queues it.
 */
export function registerAnalysisJob(deps: AnalysisJobDeps, runner: JobRunner): void {
  const { store, sessions } = deps;

  const keptWork = (job: { payload: Record<string, unknown> }) => store.keptWork(String(job.payload.run_id ?? ''));
  // The run follows its job's end in the transaction that records it (stores bound to `scope`).
  const settle = async (job: JobRecord, scope: TransactionScope) => {
    const runs = store.within(scope);
    const runId = String(job.payload.run_id ?? '');
    if (job.status === 'failed') await runs.finish(runId, 'failed', job.error ?? 'The analysis failed.', 'failed');
    else if (job.status === 'cancelled') await runs.finish(runId, 'failed', 'The analysis was cancelled.', 'failed');
    else if (job.status === 'queued') await runs.requeue(runId);
  };
  runner.register(ANALYSIS_JOB, { background: true, keptWork, settle }, async ({ job, signal, progress }: JobContext) => {
    const runId = String(job.payload.run_id ?? '');
    const run = await store.run(runId);
    if (!run) throw new JobFailure('The analysis run no longer exists.');
    if (run.status !== 'queued' && run.status !== 'running') return; // settled just before a crash
    const summary = await sessions.summary(run.session_id);
    const stored = await sessions.storedName(run.session_id);
    const transcript = await sessions.transcript(run.session_id);
    if (!summary || !stored || !transcript) throw new JobFailure('The recording or its transcript no longer exists.');
    if (summary.format.codec === null) {
      await store.finish(runId, 'unavailable', 'The recording has no audio stream.');
      return;
    }
    if (transcript.segments.length === 0) {
      await store.finish(runId, 'unavailable', 'The recording has no speech to analyse.');
      return;
    }
    await store.markRunning(runId);
    const original = await deps.files.localOriginal(run.session_id, stored);
    const request: AnalysisRequest = {
      file: original.path,
      duration: summary.duration,
      tools: deps.tools,
      modelsDir: deps.modelsDir,
      dictionary: deps.dictionary,
      lines: transcript.segments.map((s) => ({
        id: s.id,
        speaker: s.speaker,
        start: s.start,
        end: s.end,
        text: s.text,
        words: s.words.map((w) => ({ word: w.word, start: w.start, end: w.end })),
      })),
      parts: await store.parts(runId),
      doneLines: await store.lineIds(runId),
      published: await store.lines(runId),
    };
    const writes = new OrderedWrites();

    // Wall-clock time is charged to the stage running, and written at least every second, so timings
    // survive a kill with at most a second lost.
    let current: StageName | null = null;
    let mark = performance.now();
    let pending = 0;
    let lastFlush = mark;
    const charge = (force: boolean) => {
      const now = performance.now();
      pending += (now - mark) / 1000;
      mark = now;
      if (force || now - lastFlush >= 1000) {
        const stage = current;
        const seconds = pending;
        writes.add(() => store.addTime(runId, stage, seconds));
        pending = 0;
        lastFlush = now;
      }
    };
    let unavailable: string | null = null;
    try {
      await runAnalysisProcess(
        request,
        (message) => {
          if (message.type === 'stage') {
            const changed = message.stage !== current;
            charge(changed);
            current = message.stage;
            const overall = overallProgress(message.stage, message.fraction);
            const stage = message.stage;
            writes.add(() => store.progress(runId, stage, overall));
            progress(overall, message.stage);
          } else if (message.type === 'part') {
            const { name, value } = message;
            writes.add(() => store.savePart(runId, name, value));
          } else if (message.type === 'lines') {
            const lines = message.lines;
            writes.add(() => store.saveLines(runId, lines));
          } else if (message.type === 'unavailable') {
            unavailable = message.reason;
          }
        },
        signal,
      );
    } finally {
      charge(true);
      // What was reported is stored before the job ends, whichever way it ends (the checkpoints of a resumed run).
      await writes.drained().catch(() => undefined);
      await original.release();
    }
    await writes.drained();
    if (unavailable) await store.finish(runId, 'unavailable', unavailable);
    else await store.finish(runId, 'complete', null);
    crashPoints.hit('analysis.after-finish');
  });
}
