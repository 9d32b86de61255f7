import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ScriptAlignResult, TranscriptRevisionList } from '../../src/shared/schemas/transcript-edits';
import { postgresPerFile } from '../helpers/postgres-per-file';
import { startServiceProcess, uploadTranscribed, type ServiceProcess } from '../helpers/service';
import { startWorker, teamEnv, teamQuery, workerRunning, type Worker } from '../helpers/team';
import { tempDir } from '../helpers/temp';
import { twoReadersFile, twoReadersScript } from '../helpers/two-readers';
import { until } from '../helpers/poll';
import { ALREADY_ALIGNING } from '../../src/service/transcription/script-align';

const pg = postgresPerFile();

const script = twoReadersScript();

interface JobRow {
  id: string;
  status: string;
  error: string | null;
  result_json: string | null;
  finished: boolean;
}

describe('team mode: script alignment runs on a worker, answered by the API node as the desktop answers it', () => {
  it('aligns on the worker (not the API node) with the desktop’s answer and errors, and a client that leaves cancels the job', { timeout: 600_000 }, async () => {
    const env = await teamEnv(pg(), 'team_align');
    const file = fs.readFileSync(twoReadersFile(tempDir('takeline-team-align-')));
    let api: ServiceProcess | null = null;
    let desk: ServiceProcess | null = null;
    let worker: Worker | null = null;
    try {
      // The same recording on a team (API node + one worker) and on an embedded desktop service.
      [api, desk, worker] = await Promise.all([startServiceProcess({ dataDir: env.TAKELINE_DATA_DIR!, env }), startServiceProcess(), startWorker(env)]);
      const auth = (svc: ServiceProcess) => ({ Authorization: `Bearer ${svc.key}` });
      const upload = async (svc: ServiceProcess) => {
        const { id, status } = await uploadTranscribed(svc, file, 'two-readers.flac', 'align');
        expect(status).toBe('complete');
        return id;
      };
      const [teamId, deskId] = await Promise.all([upload(api), upload(desk)]);
      const align = (svc: ServiceProcess, id: string, body: unknown, signal?: AbortSignal) =>
        fetch(`${svc.url}/v1/speech/transcriptions/${id}/transcript/align`, { method: 'POST', headers: { ...auth(svc), 'Content-Type': 'application/json' }, body: JSON.stringify(body), signal });
      const jobs = () =>
        teamQuery<JobRow>(env.TAKELINE_DATABASE_URL!, "SELECT id, status, error, result_json, finished_at IS NOT NULL AS finished FROM jobs WHERE session_id = $1 AND kind = 'align_script' ORDER BY seq", [teamId]);
      const revisions = async () => TranscriptRevisionList.parse(await (await fetch(`${api!.url}/v1/speech/transcriptions/${teamId}/transcript/revisions`, { headers: auth(api!) })).json());

      // 1. The alignment: done by the worker, answered as the desktop answers it.
      const [teamRes, deskRes] = await Promise.all([align(api, teamId, { text: script, base_revision: 0 }), align(desk, deskId, { text: script, base_revision: 0 })]);
      expect(teamRes.status, await teamRes.clone().text()).toBe(200);
      expect(deskRes.status, await deskRes.clone().text()).toBe(200);
      const team = ScriptAlignResult.parse(await teamRes.json());
      const embedded = ScriptAlignResult.parse(await deskRes.json());
      expect(team.alignment.words).toBe(script.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w)).length);
      expect(team.alignment).toEqual(embedded.alignment);
      expect(team.session.transcript).toEqual(embedded.session.transcript);
      const { created_at: _t, ...teamRevision } = team.revision;
      const { created_at: _d, ...deskRevision } = embedded.revision;
      expect(teamRevision).toEqual(deskRevision);
      expect(team.revision).toMatchObject({ revision: 1, edit: { op: 'align_script' } });
      // The worker's job record holds what the route answered; the worker's log says it aligned, the API node's does not.
      const [done] = await jobs();
      expect(done).toMatchObject({ status: 'complete', finished: true });
      expect(JSON.parse(done!.result_json!)).toEqual({ answer: { revision: team.revision, alignment: team.alignment } });
      expect(worker.output()).toContain(`job ${done!.id} (align_script) started, attempt 1`);
      expect(worker.output()).toMatch(new RegExp(`script alignment ${teamId}: ${team.alignment.words} words`));
      expect(api.output()).not.toMatch(/script alignment|\(align_script\) started/);

      // 2. Errors thrown on the worker reach the client with the desktop's status and body: a stale base revision
      // (409), a script without words (422, located), each job failed with the reason.
      for (const [body, status] of [
        [{ text: 'hello there', base_revision: 0 }, 409],
        [{ text: '  \n — ', base_revision: 1 }, 422],
      ] as const) {
        const [t, d] = await Promise.all([align(api, teamId, body), align(desk, deskId, body)]);
        expect([t.status, d.status]).toEqual([status, status]);
        const answer = await t.json();
        expect(answer).toEqual(await d.json());
        if (status === 409) expect(answer.detail).toMatch(/changed meanwhile/);
        else expect(answer.detail[0]).toMatchObject({ loc: ['body', 'text'], msg: expect.stringMatching(/no words/) });
      }
      const failed = (await jobs()).slice(1);
      expect(failed.map((j) => j.status)).toEqual(['failed', 'failed']);
      expect(failed[0]!.error).toMatch(/changed meanwhile/);
      expect(api.output()).not.toMatch(/script alignment|\(align_script\) started/);

      // 3. A client that leaves mid-alignment: the job is cancelled on the worker, and nothing is stored.
      const before = await revisions();
      const controller = new AbortController();
      const leaving = align(api, teamId, { text: script, base_revision: 1 }, controller.signal).catch((error: unknown) => error);
      const rows = await until(jobs, (r) => r.length === 4);
      const jobId = rows[3]!.id;
      await workerRunning([worker], jobId);
      // While the worker aligns, the API node refuses a second alignment of the recording (as the desktop does).
      const second = await align(api, teamId, { text: script });
      expect(second.status).toBe(409);
      expect(await second.json()).toEqual({ detail: ALREADY_ALIGNING });
      controller.abort();
      expect(await leaving).toBeInstanceOf(Error);
      const left = await until(async () => (await jobs())[3]!, (j) => j.finished, 60_000);
      expect(left).toMatchObject({ status: 'cancelled', finished: true });
      expect(worker.output()).not.toMatch(new RegExp(`script alignment ${teamId}: .*revision 2`));
      expect(await revisions()).toEqual(before);
      expect(before.current).toBe(1);
    } finally {
      await worker?.stop().catch(() => {});
      await api?.stop();
      await desk?.stop();
    }
  });
});
