import { NotFoundError } from '../errors';
import type { JobKindOptions, JobQueue, JobRecord, JobRunner } from './job-runner';
import { recordError, recordedError, type RecordedError } from './recorded-error';
import { actingAs, actorIfSet, type Actor } from '../audit/actor';

/** Where a request work's job payload carries who asked for it. */
const ACTOR_FIELD = 'acting_as';

/**
 * Heavy work a client waits for in its request (a script aligned to a recording): one function that does it,
 * whichever process runs it. Its input and answer are JSON, since they travel through the job's record.
 */
export interface RequestWork<Input extends Record<string, unknown>, Answer> {
  /** The job kind it runs as. */
  kind: string;
  run(sessionId: string, input: Input, signal: AbortSignal): Promise<Answer>;
  /**
   * A job run again after its worker died: the answer of what the dead run already stored, or null to run it.
   * Work that must not be done twice (a find and replace) says so here; without it the work simply runs again.
   */
  resume?(sessionId: string, input: Input): Promise<Answer | null>;
}

/** What the job records for the API node waiting on it: the work's answer, or the domain error it threw. */
type Outcome = { answer: unknown } | { error: RecordedError };

/**
 * Does `work` for a request as a job, followed until it settles: the desktop's in-process worker starts it at
 * once, a team's worker when the queue delivers it. Either way the client gets the same answer, or the same
 * domain error (status and body). A client that leaves (`signal`) cancels the job wherever it runs, and the work
 * stores nothing.
 */
export async function doRequestWork<Input extends Record<string, unknown>, Answer>(
  jobs: JobQueue,
  work: RequestWork<Input, Answer>,
  sessionId: string,
  input: Input,
  signal: AbortSignal,
): Promise<Answer> {
  return (await doRequestWorks(jobs, work, [{ sessionId, input }], signal))[0]!;
}

/**
 * The same work for several recordings of one request (a find and replace across a project), answered in their
 * order: one job each, followed one at a time (a desktop starts each as it is followed; a team's workers run them
 * side by side). The first failure in order is thrown, and the jobs not finished by then are cancelled, as are all
 * unfinished ones when the client leaves.
 */
export async function doRequestWorks<Input extends Record<string, unknown>, Answer>(
  jobs: JobQueue,
  work: RequestWork<Input, Answer>,
  items: ReadonlyArray<{ sessionId: string; input: Input }>,
  signal: AbortSignal,
): Promise<Answer[]> {
  const answers: Answer[] = [];
  // A client already gone queues nothing.
  signal.throwIfAborted();
  const ids: string[] = [];
  let settled = 0;
  try {
    // The worker does it for whoever asked: a revision it makes names them (audit/actor.ts).
    const actor = actorIfSet();
    for (const { sessionId, input } of items) ids.push(await jobs.enqueue(work.kind, sessionId, actor ? { ...input, [ACTOR_FIELD]: actor } : input));
    for (const id of ids) {
      const job = await jobs.follow(id, signal);
      settled++;
      answers.push(answerOf(work.kind, id, job));
    }
  } catch (error) {
    await jobs.cancel(ids.slice(settled));
    throw error;
  }
  return answers;
}

/** A settled job's answer, or the error the client gets for it. */
function answerOf<Answer>(kind: string, id: string, job: JobRecord | null): Answer {
  const outcome = job?.result as Outcome | null | undefined;
  if (job?.status === 'complete' && outcome && 'answer' in outcome) return outcome.answer as Answer;
  if (job?.status === 'failed') {
    if (outcome && 'error' in outcome) throw recordedError(outcome.error);
    // Not a domain error: internal, as it would be on the desktop (the worker's log has it).
    throw new Error(`job ${id} (${kind}) failed: ${job.error}`);
  }
  // Cancelled by someone else, or the record gone: the recording was deleted meanwhile.
  throw new NotFoundError('The recording was deleted meanwhile.');
}

/**
 * The handler for the work's jobs (in every process that runs jobs): the answer, or the domain error's record, becomes the job's result.
 * `options`: the kind's (its kept work, for work that checkpoints).
 */
export function registerRequestWork<Input extends Record<string, unknown>, Answer>(runner: JobRunner, work: RequestWork<Input, Answer>, options: JobKindOptions = {}): void {
  runner.register(work.kind, options, ({ job, signal, publish }) => {
    const actor = (job.payload as Record<string, unknown> | null)?.[ACTOR_FIELD] as Actor | undefined;
    const run = () => runRequestJob(work, job, signal, publish);
    return actor ? actingAs(actor, run) : run();
  });
}

async function runRequestJob<Input extends Record<string, unknown>, Answer>(
  work: RequestWork<Input, Answer>,
  job: JobRecord,
  signal: AbortSignal,
  publish: (result: Record<string, unknown>) => void,
): Promise<Record<string, unknown>> {
  try {
    const done = job.attempts > 1 && work.resume ? await work.resume(job.session_id, job.payload as Input) : null;
    return { answer: done ?? (await work.run(job.session_id, job.payload as Input, signal)) } satisfies Outcome;
  } catch (error) {
    const recorded = signal.aborted ? null : recordError(error);
    // Written before the runner records the failure (its writes are ordered): the waiter reads both together.
    if (recorded) publish({ error: recorded } satisfies Outcome);
    throw error;
  }
}
