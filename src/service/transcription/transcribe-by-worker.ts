import type { JobQueue, JobRecord } from '../jobs/job-runner';
import { followJob } from '../jobs/follow-job';
import { NotFoundError, ProcessingFailedError } from '../errors';
import type { SpeakerTurn, Transcript } from '../speech/types';
import type { RequestResult } from './transcribe-job';

export interface WorkerWaitDeps {
  jobs: Pick<JobQueue, 'get' | 'cancelSession'>;
  transcript(sessionId: string): Promise<Transcript | null>;
}

export interface WorkerWaitHooks {
  signal: AbortSignal;
  onText?(text: string): void;
}

/**
 * Team mode's API node answering `POST /v1/audio/transcriptions`: the transcription job was queued with the
 * request's options and a worker runs it; this follows its record, hands on each recognised line's text as the
 * worker publishes it, and returns the stored transcript with the diarizer's turns once the job completes. A
 * client that leaves cancels the job on whichever worker runs it.
 */
export async function awaitWorkerTranscription(
  deps: WorkerWaitDeps,
  sessionId: string,
  jobId: string,
  hooks: WorkerWaitHooks,
): Promise<{ transcript: Transcript; turns: SpeakerTurn[] }> {
  let sent = 0;
  const handOn = (job: JobRecord) => {
    const texts = (job.result as RequestResult | null)?.texts ?? [];
    for (; sent < texts.length; sent++) hooks.onText?.(texts[sent]!);
  };
  let job: JobRecord | null;
  try {
    job = await followJob(deps.jobs, jobId, hooks.signal, handOn);
  } catch (error) {
    if (hooks.signal.aborted) await deps.jobs.cancelSession(sessionId);
    throw error;
  }
  if (job?.status === 'complete') {
    const transcript = await deps.transcript(sessionId);
    if (!transcript) throw new NotFoundError('The recording was deleted before its transcription finished.');
    return { transcript, turns: (job.result as RequestResult | null)?.turns ?? [] };
  }
  if (job?.status === 'failed') throw new ProcessingFailedError(job.error ?? 'Transcription failed.', { code: 'transcription_failed' });
  // Cancelled, or its record gone: the recording was deleted.
  throw new NotFoundError('The recording was deleted before its transcription finished.');
}
