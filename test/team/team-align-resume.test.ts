import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ScriptAlignResult } from '../../src/shared/schemas/transcript-edits';
import { postgresPerFile } from '../helpers/postgres-per-file';
import { startServiceProcess, uploadTranscribed, type ServiceProcess } from '../helpers/service';
import { sessionJobsDone, startWorker, teamEnv, teamQuery, workerRunning, type Worker } from '../helpers/team';
import { tempDir } from '../helpers/temp';
import { clipsScript, joinClips } from '../helpers/two-readers';
import { until } from '../helpers/poll';

const pg = postgresPerFile();

// About two minutes of read speech (two readers): several stretches to align, so a worker can die between them.
const CLIPS = [
  'ljspeech_LJ001-0001', 'amateur_LJ001-0010', 'ljspeech_LJ001-0003', 'amateur_LJ001-0049', 'ljspeech_LJ001-0007', 'ljspeech_LJ001-0010',
  'amateur_LJ001-0058', 'ljspeech_LJ001-0014', 'ljspeech_LJ001-0015', 'amateur_LJ001-0066', 'ljspeech_LJ001-0021', 'ljspeech_LJ001-0025',
  'amateur_LJ001-0092', 'ljspeech_LJ001-0027',
];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('team mode: a script alignment whose worker is killed resumes on another from the stretches kept', () => {
  it('aligns on attempt 2 only the stretches attempt 1 did not keep, and stores what an uninterrupted alignment gives', { timeout: 900_000 }, async () => {
    const env = await teamEnv(pg(), 'team_align_resume');
    const file = fs.readFileSync(joinClips(tempDir('takeline-team-align-resume-'), 'readings.flac', CLIPS));
    const script = clipsScript(CLIPS);
    let api: ServiceProcess | null = null;
    let desk: ServiceProcess | null = null;
    const workers: Worker[] = [];
    try {
      // A team (API node, two workers) and an embedded desktop service, which aligns in one go: the reference.
      [api, desk] = await Promise.all([startServiceProcess({ dataDir: env.TAKELINE_DATA_DIR!, env }), startServiceProcess()]);
      workers.push(...(await Promise.all([startWorker(env), startWorker(env)])));
      const auth = (svc: ServiceProcess) => ({ Authorization: `Bearer ${svc.key}` });
      const upload = async (svc: ServiceProcess) => {
        const { id, status } = await uploadTranscribed(svc, file, 'readings.flac', 'align', 600_000);
        expect(status).toBe('complete');
        return id;
      };
      const [teamId, deskId] = await Promise.all([upload(api), upload(desk)]);
      const align = (svc: ServiceProcess, id: string) =>
        fetch(`${svc.url}/v1/speech/transcriptions/${id}/transcript/align`, { method: 'POST', headers: { ...auth(svc), 'Content-Type': 'application/json' }, body: JSON.stringify({ text: script, base_revision: 0 }) });
      const kept = async () => Number((await teamQuery<{ n: number }>(env.TAKELINE_DATABASE_URL!, 'SELECT count(*) AS n FROM script_alignment_checkpoints WHERE session_id = $1', [teamId]))[0]!.n);
      const jobs = () => teamQuery<{ id: string; status: string; attempts: number }>(env.TAKELINE_DATABASE_URL!, "SELECT id, status, attempts FROM jobs WHERE session_id = $1 AND kind = 'align_script' ORDER BY seq", [teamId]);

      // The reference: the desktop's alignment of the same recording and script, uninterrupted.
      const deskRes = await align(desk, deskId);
      expect(deskRes.status, await deskRes.clone().text()).toBe(200);
      const reference = ScriptAlignResult.parse(await deskRes.json());
      const stretches = reference.alignment.stretches;
      expect(stretches).toBeGreaterThanOrEqual(4);
      // The desktop aligns inside the request: nothing would resume it, so it keeps no stretches.
      expect(desk.output()).toMatch(new RegExp(`script alignment ${deskId}: .*; ${stretches} of ${stretches} stretches aligned here, in `));

      // The upload's own jobs (analysis, speaker adaptation) finish first: a survivor still analysing would take
      // the alignment's attempt 2 only after them, which under load outlasts the wait below.
      await sessionJobsDone(env.TAKELINE_DATABASE_URL!, teamId, 600_000);

      // The team's alignment: its worker is killed once it has kept a stretch or two, well before the last.
      const answer = align(api, teamId);
      const [job] = await until(jobs, (rows) => rows.length === 1, 60_000);
      const victim = await workerRunning(workers, job!.id, 1);
      let atKill = 0;
      for (const end = Date.now() + 600_000; Date.now() < end && atKill < 2; ) {
        atKill = await kept();
        if (atKill >= 2 || (await jobs())[0]!.status !== 'running') break;
        await sleep(50);
      }
      expect(atKill, 'stretches kept before the kill').toBeGreaterThanOrEqual(2);
      await victim.kill();
      expect(atKill, 'the alignment was still under way when its worker was killed').toBeLessThan(stretches - 1);
      expect(victim.output()).not.toMatch(new RegExp(`script alignment ${teamId}: \\d+ words`));

      // Another worker takes the job over (attempt 2), aligns only what was not kept, and the client that waited on
      // the API node meanwhile gets the desktop's answer.
      const survivor = await workerRunning(workers.filter((w) => w !== victim), job!.id, 2);
      const res = await answer;
      expect(res.status, await res.clone().text()).toBe(200);
      const team = ScriptAlignResult.parse(await res.json());
      const resumed = new RegExp(`script alignment ${teamId}: resuming with (\\d+) aligned stretches kept`).exec(survivor.output());
      expect(resumed, survivor.output()).not.toBeNull();
      const reused = Number(resumed![1]);
      // Kept are at least those counted just before the kill (a stretch may have been written between the two).
      expect(reused).toBeGreaterThanOrEqual(atKill);
      expect(reused).toBeLessThan(stretches);
      expect(survivor.output()).toContain(`; ${stretches - reused} of ${stretches} stretches aligned here, ${reused} kept from an earlier attempt, in `);

      // The same revision as the uninterrupted alignment: the transcript, the edit and the counts.
      expect(team.alignment).toEqual(reference.alignment);
      expect(team.session.transcript).toEqual(reference.session.transcript);
      const { created_at: _t, ...teamRevision } = team.revision;
      const { created_at: _d, ...deskRevision } = reference.revision;
      expect(teamRevision).toEqual(deskRevision);
      expect(team.revision).toMatchObject({ revision: 1, edit: { op: 'align_script' } });
      expect(await jobs()).toEqual([{ id: job!.id, status: 'complete', attempts: 2 }]);
      // Once the alignment is stored its checkpoints are gone.
      expect(await until(kept, (n) => n === 0, 30_000)).toBe(0);
    } finally {
      for (const w of workers) await w.stop().catch(() => {});
      await api?.stop();
      await desk?.stop();
    }
  });
});
