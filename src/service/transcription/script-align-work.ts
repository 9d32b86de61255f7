import { ConflictError } from '../errors';
import { doRequestWork, registerRequestWork, type RequestWork } from '../jobs/request-work';
import type { JobRunner } from '../jobs/job-runner';
import type { JobStore } from '../storage/job-store';
import type { ScriptAlignCheckpointStore } from '../storage/script-align-checkpoint-store';
import { ALREADY_ALIGNING, type ScriptAlignment } from './script-align';

/** A script alignment as a team's worker runs it (the API node queues it and waits). */
export const ALIGN_SCRIPT_JOB = 'align_script';

/** `POST …/transcript/align`'s input, as the job's payload. */
export interface ScriptAlignInput extends Record<string, unknown> {
  text: string;
  base_revision?: number;
}

export type ScriptAligned = Awaited<ReturnType<ScriptAlignment['align']>>;

/** The alignment as request work: the same `ScriptAlignment.align` in the desktop's process and on a worker. */
export function scriptAlignmentWork(alignment: ScriptAlignment): RequestWork<ScriptAlignInput, ScriptAligned> {
  return {
    kind: ALIGN_SCRIPT_JOB,
    run: (sessionId, input, signal) => alignment.align(sessionId, { text: input.text, baseRevision: input.base_revision }, signal),
  };
}

/**
 * A worker's handler for alignment jobs. With `checkpoints` (those `alignment` keeps its stretches in), they count
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
 * Aligns a script to a recording for a request: here on the desktop, on a worker on a team. One alignment of a
 * recording at a time: `ScriptAlignment` refuses a second in its own process; an API node also refuses one while
 * a worker runs (or has yet to start) another, since two workers would not see each other's.
 */
export async function alignScript(
  deps: { jobs: JobRunner; jobRecords: Pick<JobStore, 'latest'>; alignment: ScriptAlignment },
  sessionId: string,
  input: ScriptAlignInput,
  signal: AbortSignal,
): Promise<ScriptAligned> {
  if (!deps.jobs.runsJobsHere) {
    const last = await deps.jobRecords.latest(ALIGN_SCRIPT_JOB, sessionId);
    if (last?.status === 'queued' || last?.status === 'running') throw new ConflictError(ALREADY_ALIGNING);
  }
  return doRequestWork(deps.jobs, scriptAlignmentWork(deps.alignment), sessionId, input, signal);
}
