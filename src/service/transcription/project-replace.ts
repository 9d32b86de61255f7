import { doRequestWorks, type RequestWork } from '../jobs/request-work';
import type { JobQueue } from '../jobs/job-runner';
import type { ReplaceQuery } from './text-corrections';
import type { ProjectReplacePlan, ReplaceOutcome, TranscriptEditor } from './transcript-edits';

/** One recording's part of a project-wide find and replace, as a team's worker runs it. */
export const REPLACE_IN_RECORDING_JOB = 'replace_in_recording';

/** The job's payload: the query, and the revision the API node found the matches on. */
export interface RecordingReplaceInput extends Record<string, unknown> {
  find: string;
  replace: string;
  match_case: boolean;
  whole_words: boolean;
  base_revision: number;
}

export type ProjectReplaceOutcome = Array<{ session_id: string; file_name: string } & ReplaceOutcome>;

const queryOf = (input: RecordingReplaceInput): ReplaceQuery => ({ find: input.find, replace: input.replace, matchCase: input.match_case, wholeWords: input.whole_words });

/**
 * A recording's replacement as request work: `TranscriptEditor.replace` on the revision the matches were found on,
 * in the desktop's process or on a worker. Run again after its worker died, a replacement that run already stored
 * is answered from its revision, not made twice (the base revision refuses a second one in any case).
 */
export function recordingReplaceWork(editor: Pick<TranscriptEditor, 'replace' | 'replacedAlready'>): RequestWork<RecordingReplaceInput, ReplaceOutcome> {
  return {
    kind: REPLACE_IN_RECORDING_JOB,
    run: (sessionId, input, signal) => editor.replace(sessionId, { ...queryOf(input), baseRevision: input.base_revision }, signal),
    resume: (sessionId, input) => editor.replacedAlready(sessionId, queryOf(input), input.base_revision),
  };
}

/**
 * Find and replace over every finished recording of a project, one revision per recording that matches. The
 * matches are found and checked here, for every recording before any is written (text only: cheap). The
 * replacements, which align each changed line to its audio, are one job per recording (`doRequestWorks`), run by
 * the desktop's in-process worker or a team's workers: the answer, or the error of the first recording in the
 * project's order that failed (the rest are cancelled; those done keep theirs). A client that leaves (`signal`)
 * stops what has not been stored.
 */
export async function replaceAcrossProject(
  deps: { jobs: JobQueue; editor: Pick<TranscriptEditor, 'planProjectReplace' | 'replace' | 'replacedAlready'> },
  projectId: string,
  query: ReplaceQuery & { preview?: boolean },
  signal: AbortSignal,
): Promise<ProjectReplaceOutcome> {
  const plans = await deps.editor.planProjectReplace(projectId, query);
  const todo = query.preview ? [] : plans.filter((p) => p.changes);
  const options = { find: query.find, replace: query.replace, match_case: query.matchCase ?? false, whole_words: query.wholeWords ?? false };
  const made = await doRequestWorks(
    deps.jobs,
    recordingReplaceWork(deps.editor),
    todo.map((plan) => ({ sessionId: plan.session_id, input: { ...options, base_revision: plan.revision } })),
    signal,
  );
  return projectOutcome(plans, new Map(todo.map((plan, k) => [plan, made[k]!])));
}

/** The answer per recording, in the plan's order: what its replacement made, or its matches and no revision. */
export function projectOutcome(plans: readonly ProjectReplacePlan[], made: ReadonlyMap<ProjectReplacePlan, ReplaceOutcome>): ProjectReplaceOutcome {
  return plans.map((plan) => ({ session_id: plan.session_id, file_name: plan.file_name, ...(made.get(plan) ?? { count: plan.matches.length, matches: plan.matches, revision: null }) }));
}
