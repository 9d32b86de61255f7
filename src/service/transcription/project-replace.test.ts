import { afterEach, describe, expect, it } from 'vitest';
import { requestWorkTeam } from '../../../test/helpers/request-work-team';
import { ConflictError, InvalidInputError, issue, ServiceError } from '../errors';
import { registerRequestWork } from '../jobs/request-work';
import type { RevisionRecord } from '../storage/revision-store';
import { recordingReplaceWork, replaceAcrossProject, REPLACE_IN_RECORDING_JOB } from './project-replace';
import type { ReplaceQuery } from './text-corrections';
import type { ProjectReplacePlan, ReplaceOutcome } from './transcript-edits';

const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

const match = (segment: number) => ({ segment_id: segment, word_start: 0, word_end: 0, before: 'the', after: 'a' });
/** s1 and s3 have matches, s2 none (the project's order: s1, s2, s3). */
const plans: ProjectReplacePlan[] = [
  { session_id: 's1', file_name: 'one.wav', revision: 4, matches: [match(0), match(2)], changes: true },
  { session_id: 's2', file_name: 'two.wav', revision: 0, matches: [], changes: false },
  { session_id: 's3', file_name: 'three.wav', revision: 1, matches: [match(1)], changes: true },
];
const revision = (n: number): RevisionRecord => ({ revision: n, created_at: 'now', edit: null, speakers: ['S1'], segments: 3, author: null });

/** An editor whose replacements answer, or throw what `fails` says for a recording; `calls` lists them in order. */
function editor(fails: Record<string, Error | 'hang'> = {}) {
  const calls: Array<{ session: string; query: ReplaceQuery & { baseRevision?: number } }> = [];
  return {
    calls,
    planProjectReplace: async () => plans,
    replace: async (session: string, query: ReplaceQuery & { baseRevision?: number }, signal?: AbortSignal): Promise<ReplaceOutcome> => {
      calls.push({ session, query });
      const fail = fails[session];
      // 'hang': aligning until the job is stopped.
      if (fail === 'hang') await new Promise((_resolve, reject) => signal!.addEventListener('abort', () => reject(signal!.reason)));
      else if (fail) throw fail;
      const plan = plans.find((p) => p.session_id === session)!;
      return { count: plan.matches.length, matches: plan.matches, revision: revision(query.baseRevision! + 1) };
    },
    replacedAlready: async () => null,
  };
}

const query = { find: 'the', replace: 'a', wholeWords: true };
const signal = () => new AbortController().signal;

/**
 * The desktop (its runner with its in-process worker, over a database of its own) and a team (an API node and a
 * worker), each with its editor: the same use case and handler in both.
 */
async function sides(fails: Record<string, Error | 'hang'> = {}) {
  const team = requestWorkTeam(['s1', 's2', 's3']);
  stops.push(team.stop);
  const desktop = requestWorkTeam(['s1', 's2', 's3']);
  stops.push(desktop.stop);
  const desk = { jobs: desktop.runner('embedded'), editor: editor(fails) };
  registerRequestWork(desk.jobs, recordingReplaceWork(desk.editor));
  await desk.jobs.start();
  const workerEditor = editor(fails);
  registerRequestWork(team.worker, recordingReplaceWork(workerEditor));
  // The API node's editor only plans: a replacement made there would be the fault this change removes.
  const apiEditor = editor(fails);
  return { team, desk, api: { jobs: team.api, editor: apiEditor }, workerEditor };
}

describe('project-wide find and replace: one job per recording, run by the desktop’s in-process worker or a team’s workers', () => {
  it('gives the same answer both ways, in the project’s order; on a team the worker replaces, on the base revisions found', async () => {
    const { team, desk, api, workerEditor } = await sides();
    await team.worker.start();
    const expected = [
      { session_id: 's1', file_name: 'one.wav', count: 2, matches: plans[0]!.matches, revision: revision(5) },
      { session_id: 's2', file_name: 'two.wav', count: 0, matches: [], revision: null },
      { session_id: 's3', file_name: 'three.wav', count: 1, matches: plans[2]!.matches, revision: revision(2) },
    ];
    expect(await replaceAcrossProject(desk, 'p', query, signal())).toEqual(expected);
    expect(desk.editor.calls.map((c) => c.session)).toEqual(['s1', 's3']);
    expect(team.db.prepare('SELECT count(*) AS n FROM jobs').get()).toEqual({ n: 0 });

    expect(await replaceAcrossProject(api, 'p', query, signal())).toEqual(expected);
    expect(api.editor.calls).toEqual([]);
    expect(workerEditor.calls.map((c) => c.session).sort()).toEqual(['s1', 's3']);
    expect(workerEditor.calls.find((c) => c.session === 's1')!.query).toEqual({ find: 'the', replace: 'a', matchCase: false, wholeWords: true, baseRevision: 4 });
    const jobs = team.db.prepare('SELECT kind, session_id, status, payload_json FROM jobs ORDER BY session_id').all() as Array<{ kind: string; session_id: string; status: string; payload_json: string }>;
    expect(jobs.map((j) => [j.kind, j.session_id, j.status])).toEqual([
      [REPLACE_IN_RECORDING_JOB, 's1', 'complete'],
      [REPLACE_IN_RECORDING_JOB, 's3', 'complete'],
    ]);
    expect(JSON.parse(jobs[1]!.payload_json)).toEqual({ find: 'the', replace: 'a', match_case: false, whole_words: true, base_revision: 1 });
  });

  it('a preview replaces nothing and queues nothing', async () => {
    const { team, desk, api, workerEditor } = await sides();
    await team.worker.start();
    const preview = { ...query, preview: true };
    const answer = await replaceAcrossProject(api, 'p', preview, signal());
    expect(answer).toEqual(await replaceAcrossProject(desk, 'p', preview, signal()));
    expect(answer.map((r) => [r.count, r.revision])).toEqual([
      [2, null],
      [0, null],
      [1, null],
    ]);
    expect([...desk.editor.calls, ...api.editor.calls, ...workerEditor.calls]).toEqual([]);
    expect(team.db.prepare('SELECT count(*) AS n FROM jobs').get()).toEqual({ n: 0 });
  });

  it('answers the error of the first recording that failed, in the project’s order, and stops the rest, as the desktop does', async () => {
    const stale = new ConflictError('The transcript changed meanwhile (revision 5, the change was made on 4); reload it and try again.');
    const empty = new InvalidInputError([issue(['body', 'replace'], 'A line would be left without words.', 'value_error', null)]);
    // s3 would align until stopped: the desktop never starts it, a team's worker has it cancelled.
    const { team, desk, api, workerEditor } = await sides({ s1: stale, s3: 'hang' });
    await team.worker.start();
    const onDesk = await replaceAcrossProject(desk, 'p', query, signal()).catch((e: unknown) => e);
    // The desktop's job records the domain error as a team's does: the same status and body.
    expect(onDesk).toBeInstanceOf(ServiceError);
    expect(onDesk).toMatchObject({ kind: 'conflict', message: stale.message });
    expect(desk.editor.calls.map((c) => c.session)).toEqual(['s1']);
    const onTeam = await replaceAcrossProject(api, 'p', query, signal()).catch((e: unknown) => e);
    expect(onTeam).toBeInstanceOf(ServiceError);
    expect(onTeam).toMatchObject({ kind: 'conflict', message: stale.message });
    expect(workerEditor.calls.map((c) => c.session).sort()).toEqual(['s1', 's3']);
    expect(team.db.prepare('SELECT session_id, status FROM jobs ORDER BY session_id').all()).toEqual([
      { session_id: 's1', status: 'failed' },
      { session_id: 's3', status: 'cancelled' },
    ]);

    // Only the later one fails: both report its located fault.
    const later = await sides({ s3: empty });
    await later.team.worker.start();
    const laterDesk = await replaceAcrossProject(later.desk, 'p', query, signal()).catch((e: unknown) => e);
    const laterTeam = await replaceAcrossProject(later.api, 'p', query, signal()).catch((e: unknown) => e);
    expect(laterDesk).toBeInstanceOf(InvalidInputError);
    expect((laterDesk as InvalidInputError).issues).toEqual(empty.issues);
    expect(laterTeam).toBeInstanceOf(InvalidInputError);
    expect((laterTeam as InvalidInputError).issues).toEqual(empty.issues);
  });

  it('a client that left stops the desktop before the next recording, and cancels the team’s jobs on the worker', async () => {
    const { team, desk, api, workerEditor } = await sides({ s1: 'hang', s3: 'hang' });
    await team.worker.start();
    const gone = new AbortController();
    gone.abort(new Error('client left'));
    expect(await replaceAcrossProject(desk, 'p', query, gone.signal).catch((e: unknown) => e)).toMatchObject({ message: 'client left' });
    expect(desk.editor.calls).toEqual([]);
    const leaving = new AbortController();
    const answer = replaceAcrossProject(api, 'p', query, leaving.signal).catch((e: unknown) => e);
    for (let n = 0; n < 250 && workerEditor.calls.length < 2; n++) await new Promise((r) => setTimeout(r, 20));
    expect(workerEditor.calls).toHaveLength(2);
    leaving.abort(new Error('client left'));
    expect(await answer).toMatchObject({ message: 'client left' });
    expect(team.db.prepare('SELECT status FROM jobs').all()).toEqual([{ status: 'cancelled' }, { status: 'cancelled' }]);
  });
});
