import { JobFailure, type JobContext, type JobRunner } from '../jobs/job-runner';
import { forkModule } from '../module-runners';
import type { AnalysisStore } from './analysis-store';
import type { SessionStore } from '../storage/session-store';
import type { DataLayout } from '../storage/files';
import type { MediaTools } from '../media/tools';
import type { AnalysisMessage, AnalysisRequest } from './protocol';
import { overallProgress, type StageName } from './stages';

export const ANALYSIS_JOB = 'analysis';

export interface AnalysisJobDeps {
  store: AnalysisStore;
  sessions: SessionStore;
  layout: DataLayout;
  tools: MediaTools;
  modelsDir: string | null;
  /** The recognizer's pronunciation dictionary, for syllable counts. */
  dictionary: string;
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
  const child = forkModule('./analysis-process', import.meta.url);
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

  runner.register(ANALYSIS_JOB, { background: true, keptWork: (job) => store.keptWork(String(job.payload.run_id ?? '')) }, async ({ job, signal, progress }: JobContext) => {
    const runId = String(job.payload.run_id ?? '');
    const run = store.run(runId);
    if (!run) throw new JobFailure('The analysis run no longer exists.');
    if (run.status !== 'queued' && run.status !== 'running') return; // settled just before a crash
    const summary = await sessions.summary(run.session_id);
    const stored = await sessions.storedName(run.session_id);
    const transcript = await sessions.transcript(run.session_id);
    if (!summary || !stored || !transcript) throw new JobFailure('The recording or its transcript no longer exists.');
    if (summary.format.codec === null) {
      store.finish(runId, 'unavailable', 'The recording has no audio stream.');
      return;
    }
    if (transcript.segments.length === 0) {
      store.finish(runId, 'unavailable', 'The recording has no speech to analyse.');
      return;
    }
    store.markRunning(runId);
    const request: AnalysisRequest = {
      file: deps.layout.original(run.session_id, stored),
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
      parts: store.parts(runId),
      doneLines: store.lineIds(runId),
      published: store.lines(runId),
    };

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
        store.addTime(runId, current, pending);
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
            store.progress(runId, message.stage, overall);
            progress(overall, message.stage);
          } else if (message.type === 'part') {
            store.savePart(runId, message.name, message.value);
          } else if (message.type === 'lines') {
            store.saveLines(runId, message.lines);
          } else if (message.type === 'unavailable') {
            unavailable = message.reason;
          }
        },
        signal,
      );
    } finally {
      charge(true);
    }
    if (unavailable) store.finish(runId, 'unavailable', unavailable);
    else store.finish(runId, 'complete', null);
  });

  runner.on('settled', (job) => {
    if (job.kind !== ANALYSIS_JOB) return;
    const runId = String(job.payload.run_id ?? '');
    if (job.status === 'failed') store.finish(runId, 'failed', job.error ?? 'The analysis failed.', 'failed');
    else if (job.status === 'cancelled') store.finish(runId, 'failed', 'The analysis was cancelled.', 'failed');
    else if (job.status === 'queued') store.requeue(runId);
  });
}
