import { PgBoss } from 'pg-boss';
import { describe, expect, it } from 'vitest';
import { ProjectTranscriptReplaceResult, TranscriptRevisionList } from '../../src/shared/schemas/transcript-edits';
import { REPLACE_IN_RECORDING_JOB } from '../../src/service/transcription/project-replace';
import { postgresPerFile } from '../helpers/postgres-per-file';
import { until } from '../helpers/poll';
import { childProcesses } from '../helpers/proc-stat';
import { startServiceProcess, uploadAllTranscribed, type ServiceProcess } from '../helpers/service';
import { startWorker, teamEnv, teamQuery, workerRunning, type Worker } from '../helpers/team';
import { tempDir } from '../helpers/temp';
import { joinClips } from '../helpers/two-readers';

const pg = postgresPerFile();

/** Two recordings of read speech with many "the" (../shared/audio/asr, refs.tsv), about 25 s each. */
const RECORDINGS = [
  ['amateur_LJ001-0152', 'ljspeech_LJ001-0015', 'amateur_LJ001-0147'],
  ['ljspeech_LJ001-0003', 'ljspeech_LJ001-0004', 'ljspeech_LJ001-0018'],
];

interface JobRow {
  id: string;
  session_id: string;
  status: string;
  attempts: number;
  result_json: string | null;
  payload_json: string;
}

/** Names of a process's descendants (Linux truncates them to 15 characters). */
const descendants = (pid: number): string[] => childProcesses(pid).flatMap((c) => [c.name, ...descendants(c.pid)]);

describe('team mode: find and replace across a project runs on the workers, answered by the API node as the desktop answers it', () => {
  it('replaces on the workers with the desktop’s answer and errors, once even when a worker dies, and a client that leaves cancels the jobs', { timeout: 900_000 }, async () => {
    const env = await teamEnv(pg(), 'team_project_replace');
    const dir = tempDir('takeline-team-replace-');
    const files = RECORDINGS.map((clips, k) => joinClips(dir, `replace-${k + 1}.flac`, clips));
    let api: ServiceProcess | null = null;
    let desk: ServiceProcess | null = null;
    const workers: Worker[] = [];
    try {
      // The same project on a team (API node + two workers) and on an embedded desktop service.
      let a: Worker, b: Worker;
      [api, desk, a, b] = await Promise.all([startServiceProcess({ dataDir: env.TAKELINE_DATA_DIR!, env }), startServiceProcess(), startWorker(env), startWorker(env)]);
      workers.push(a, b);
      const auth = (svc: ServiceProcess) => ({ Authorization: `Bearer ${svc.key}` });
      const [teamIds] = await Promise.all([uploadAllTranscribed(api, 'replace', files), uploadAllTranscribed(desk, 'replace', files)]);
      const replace = (svc: ServiceProcess, body: unknown, signal?: AbortSignal) =>
        fetch(`${svc.url}/v1/speech/projects/replace/transcripts/replace`, { method: 'POST', headers: { ...auth(svc), 'Content-Type': 'application/json' }, body: JSON.stringify(body), signal });
      const both = async (body: unknown) => {
        const [t, d] = await Promise.all([replace(api!, body), replace(desk!, body)]);
        return { team: { status: t.status, body: await t.json() }, desk: { status: d.status, body: await d.json() } };
      };
      // The answer without what differs between two services by nature: recording ids, the revisions' times.
      const comparable = (answer: unknown) => {
        const parsed = ProjectTranscriptReplaceResult.parse(answer);
        return { ...parsed, recordings: parsed.recordings.map(({ session_id: _id, revision, ...r }) => ({ ...r, revision: revision && { ...revision, created_at: 'at' } })) };
      };
      const jobs = () =>
        teamQuery<JobRow>(env.TAKELINE_DATABASE_URL!, 'SELECT id, session_id, status, attempts, result_json, payload_json FROM jobs WHERE kind = $1 ORDER BY seq', [REPLACE_IN_RECORDING_JOB]);
      const revisions = async (id: string) => TranscriptRevisionList.parse(await (await fetch(`${api!.url}/v1/speech/transcriptions/${id}/transcript/revisions`, { headers: auth(api!) })).json());
      const transcript = async (svc: ServiceProcess, id: string) => ((await (await fetch(`${svc.url}/v1/speech/transcriptions/${id}`, { headers: auth(svc) })).json()) as { transcript: unknown }).transcript;
      const body = { find: 'the', replace: 'the very', whole_words: true };

      // 1. A preview: the same answer, found by the API node itself (nothing queued).
      const preview = await both({ ...body, preview: true });
      expect([preview.team.status, preview.desk.status]).toEqual([200, 200]);
      expect(comparable(preview.team.body)).toEqual(comparable(preview.desk.body));
      expect(preview.team.body.count).toBeGreaterThanOrEqual(8);
      expect(preview.team.body.recordings.map((r: { count: number }) => r.count > 0)).toEqual([true, true]);
      expect(await jobs()).toEqual([]);

      // 2. Refusals checked before any work is queued: an unknown project (404), a line left without words (422, located).
      const firstLine = ((await transcript(api, teamIds[0]!)) as { segments: Array<{ words: Array<{ word: string }> }> }).segments[0]!.words.map((w) => w.word).join(' ');
      for (const [path, refused, status] of [
        ['no-such-project', body, 404],
        ['replace', { find: firstLine, replace: '' }, 422],
      ] as const) {
        const [t, d] = await Promise.all(
          [api, desk].map((svc) => fetch(`${svc.url}/v1/speech/projects/${path}/transcripts/replace`, { method: 'POST', headers: { ...auth(svc), 'Content-Type': 'application/json' }, body: JSON.stringify(refused) })),
        );
        expect([t!.status, d!.status]).toEqual([status, status]);
        const answer = await t!.json();
        expect(answer).toEqual(await d!.json());
        if (status === 422) expect(answer.detail[0].loc).toEqual(['body', 'replace']);
      }
      expect(await jobs()).toEqual([]);

      // 3. The replacement: one job per recording on the workers; the worker running the first is killed with
      // kill -9 as soon as it starts it, and the other finishes both. The answer is the desktop's, each recording
      // replaced once.
      const apiTree: string[] = [];
      const watching = setInterval(() => apiTree.push(...descendants(api!.child.pid!)), 100);
      const teamAnswer = replace(api, body);
      // The two jobs in the project's order (queued side by side, in either order).
      const inOrder = (rows: JobRow[]) => teamIds.map((id) => rows.slice(0, 2).find((j) => j.session_id === id)!);
      const queued = inOrder(await until(jobs, (r) => r.length === 2));
      expect(queued.every((j) => j !== undefined)).toBe(true);
      const victim = await workerRunning(workers, queued[0]!.id);
      await victim.kill();
      const survivor = workers.find((w) => w !== victim)!;
      const teamRes = await teamAnswer;
      clearInterval(watching);
      expect(teamRes.status, await teamRes.clone().text()).toBe(200);
      const deskRes = await replace(desk, body);
      expect(deskRes.status).toBe(200);
      const team = ProjectTranscriptReplaceResult.parse(await teamRes.json());
      const embedded = ProjectTranscriptReplaceResult.parse(await deskRes.json());
      expect(comparable(team)).toEqual(comparable(embedded));
      expect(team.recordings.map((r) => r.revision)).toMatchObject([
        { revision: 1, edit: { op: 'replace', find: 'the', replace: 'the very' } },
        { revision: 1, edit: { op: 'replace', find: 'the', replace: 'the very' } },
      ]);
      for (const [k, id] of teamIds.entries()) {
        expect((await revisions(id)).current).toBe(1);
        expect(await transcript(api, id)).toEqual(await transcript(desk, embedded.recordings[k]!.session_id));
      }
      const settled = inOrder(await jobs());
      expect(settled.map((j) => [j.status, j.attempts])).toEqual([
        ['complete', 2],
        ['complete', 1],
      ]);
      // With who asked (the audit trail's actor, so the revision the worker makes is theirs).
      expect(JSON.parse(settled[0]!.payload_json)).toEqual({
        find: 'the',
        replace: 'the very',
        match_case: false,
        whole_words: true,
        base_revision: 0,
        acting_as: expect.objectContaining({ kind: 'desktop', name: 'the desktop' }),
      });
      expect(survivor.output()).toContain(`job ${settled[0]!.id} (${REPLACE_IN_RECORDING_JOB}) started, attempt 2`);
      expect(survivor.output()).toContain(`job ${settled[1]!.id} (${REPLACE_IN_RECORDING_JOB}) started, attempt 1`);
      // The API node aligned nothing: no job of its own, and no aligner (PocketSphinx) under it at any time.
      // (It may log that such a job waits for a worker: it watches hand-overs; it never starts one.)
      expect(api.output()).not.toMatch(new RegExp(`\\(${REPLACE_IN_RECORDING_JOB}\\) started`));
      expect(apiTree.filter((name) => /pocketsphinx/.test(name))).toEqual([]);
      expect(descendants(desk.child.pid!).some((name) => /pocketsphinx/.test(name))).toBe(true);

      // 4. A worker that died after storing a replacement and before recording its job leaves the record running;
      // the queue delivers the job again. It answers from the revision stored, and replaces nothing twice (a second
      // "the" → "the very" would make "the very very").
      const [, done] = settled;
      const revisionsBefore = await revisions(done!.session_id);
      const transcriptBefore = await transcript(api, done!.session_id);
      await teamQuery(env.TAKELINE_DATABASE_URL!, "UPDATE jobs SET status = 'running', result_json = NULL, finished_at = NULL WHERE id = $1", [done!.id]);
      const boss = new PgBoss({ connectionString: env.TAKELINE_DATABASE_URL!, supervise: false, schedule: false, migrate: false });
      await boss.start();
      await boss.send('takeline-jobs', { job_id: done!.id, kind: REPLACE_IN_RECORDING_JOB });
      await boss.stop({ graceful: false });
      const again = await until(async () => (await jobs()).find((j) => j.id === done!.id)!, (j) => j.status !== 'running', 120_000);
      expect(again).toMatchObject({ status: 'complete', attempts: 2 });
      expect(JSON.parse(again.result_json!)).toEqual(JSON.parse(done!.result_json!));
      expect(JSON.parse(again.result_json!).answer.revision).toEqual(team.recordings[1]!.revision);
      expect(await revisions(done!.session_id)).toEqual(revisionsBefore);
      expect(await transcript(api, done!.session_id)).toEqual(transcriptBefore);
      expect(JSON.stringify(transcriptBefore)).not.toMatch(/very very/i);

      // 5. A client that leaves: its jobs are cancelled and nothing is stored. With no worker running, the jobs wait
      // queued; a worker started afterwards finds them cancelled and runs nothing.
      await survivor.stop();
      const client = new AbortController();
      const leaving = replace(api, { find: 'very', replace: 'quite', whole_words: true }, client.signal).catch((error: unknown) => error);
      await until(jobs, (r) => r.length === 4);
      client.abort();
      expect(await leaving).toBeInstanceOf(Error);
      const left = await until(jobs, (r) => r.slice(2).every((j) => j.status === 'cancelled'), 60_000);
      expect(left.slice(2).map((j) => j.status)).toEqual(['cancelled', 'cancelled']);
      const late = await startWorker(env);
      workers.push(late);
      await new Promise((r) => setTimeout(r, 3000));
      expect(late.output()).not.toContain(REPLACE_IN_RECORDING_JOB);
      for (const id of teamIds) expect((await revisions(id)).current).toBe(1);
    } finally {
      for (const w of workers) await w.stop().catch(() => {});
      await api?.stop();
      await desk?.stop();
    }
  });
});
