import { ConflictError } from '../errors';
import { doRequestWork, registerRequestWork, type RequestWork } from '../jobs/request-work';
import type { JobQueue, JobRunner } from '../jobs/job-runner';
import type { JobStore } from '../storage/job-store';
import type { ScriptAlignCheckpointStore } from '../storage/script-align-checkpoint-store';
import { ALREADY_ALIGNING, type ScriptAlignment } from './script-align';

/** A script alignment as a job (the request queues it and follows it). */
export const ALIGN_SCRIPT_JOB = 'align_script';

/** `POST …/transcript/align`'s input, as the job's payload. */
export interface ScriptAlignInput extends Record<string, unknown> {
  text: string;
  base_revision?: number;
}

export type ScriptAligned = Awaited<ReturnType<ScriptAlignment['align']>>;

/** The alignment as request work: the same `ScriptAlignment.align` on the desktop's in-process worker and on a team's. */
export function scriptAlignmentWork(alignment: ScriptAlignment): RequestWork<ScriptAlignInput, ScriptAligned> {
  return {
    kind: ALIGN_SCRIPT_JOB,
    run: (sessionId, input, signal) => alignment.align(sessionId, { text: input.text, baseRevision: input.base_revision }, signal),
  };
}

/**
 * The handler for alignment jobs. With `checkpoints` (those `alignment` keeps its stretches in), they count
 * as the job's kept work (a job killed again and again while they grow is making progress, not crash-looping) and
 * go once the job settles: complete, failed (a domain error, or interrupted too often) or cancelled, none of which
 * is run again. A job handed back (the worker stopping or killed) keeps them for its next attempt.
 */
export function registerScriptAlignment(runner: JobRunner, alignment: ScriptAlignment, checkpoints?: ScriptAlignCheckpointStore): void {
  registerRequestWork(
    runner,
    scriptAlignmentWork(alignment),
    checkpoints
      ? {
          keptWork: (job) => checkpoints.count(job.session_id),
          // Removed in the transaction that records the job's end.
          settle: async (job, scope) => {
            if (job.status !== 'queued') await checkpoints.within(scope).discard(job.session_id);
          },
        }
      : {},
  );
}

/**
 * Aligns a script to a recording for a request, as a job it follows (the desktop's in-process worker starts it at
 * once, a team's worker when the queue delivers it). One alignment of a recording at a time: one queued or running
 * is refused here, since two workers would not see each other's (`ScriptAlignment` also refuses a second in its
 * own process).
 */
export async function alignScript(
  deps: { jobs: JobQueue; jobRecords: Pick<JobStore, 'latest'>; alignment: ScriptAlignment },
  sessionId: string,
  input: ScriptAlignInput,
  signal: AbortSignal,
): Promise<ScriptAligned> {
  const last = await deps.jobRecords.latest(ALIGN_SCRIPT_JOB, sessionId);
  if (last?.status === 'queued' || last?.status === 'running') throw new ConflictError(ALREADY_ALIGNING);
  return doRequestWork(deps.jobs, scriptAlignmentWork(deps.alignment), sessionId, input, signal);
}
