/**
 * What a project-wide find and replace (`POST /v1/speech/projects/{project}/transcripts/replace`) costs the process
 * that serves the request, side by side in one run: a desktop service (the replace runs in the serving process, as
 * a team's API node ran it before workers aligned the changed lines) and a team's API node (its worker aligns the changed lines).
 * CPU seconds of each serving process's tree (node, ffmpeg's decodes, the PocketSphinx aligner), the worker's tree
 * during the team's request, and wall time; the same project of four real recordings (three ../shared/audio/asr
 * clips each) on both, every "the" replaced by "garden" and back, `--rounds` times. Each request starts once every
 * process is idle (the analysis each replacement queues has finished), so only the request's own work counts.
 *
 *   node --import tsx bench/team/project-replace-cpu.ts [--rounds 3]
 */
import { parseArgs } from 'node:util';
import { ProjectTranscriptReplaceResult } from '../../src/shared/schemas/transcript-edits';
import { startPostgres } from '../../test/helpers/postgres';
import { startServiceProcess, uploadAllTranscribed, type ServiceProcess } from '../../test/helpers/service';
import { startWorker, teamEnv, teamQuery } from '../../test/helpers/team';
import { tempDir } from '../../test/helpers/temp';
import { joinClips } from '../../test/helpers/two-readers';
import { processTreeCpuSeconds } from './tree-cpu';

/** Recordings with many "the" (refs.tsv): about 25 s each. */
const REPLACE_RECORDINGS = [
  ['amateur_LJ001-0152', 'ljspeech_LJ001-0015', 'amateur_LJ001-0147'],
  ['amateur_LJ003-0040', 'amateur_LJ003-0064', 'ljspeech_LJ001-0001'],
  ['ljspeech_LJ001-0003', 'ljspeech_LJ001-0004', 'ljspeech_LJ001-0018'],
  ['amateur_LJ001-0001', 'amateur_LJ001-0138', 'amateur_LJ002-0073'],
];

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '3' } } });
const rounds = Number(values.rounds);

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/**
 * Waits until these process trees together use under a tenth of a core over 2 s and `more` holds (the team has no
 * job queued or running: a worker between two jobs can look idle).
 */
async function idle(pids: number[], more: () => Promise<boolean>): Promise<void> {
  const total = () => pids.reduce((sum, pid) => sum + processTreeCpuSeconds(pid), 0);
  for (const deadline = Date.now() + 900_000; Date.now() < deadline; ) {
    const before = total();
    await new Promise((r) => setTimeout(r, 2000));
    if (total() - before < 0.2 && (await more())) return;
  }
  throw new Error('the services did not go idle');
}

const dir = tempDir('takeline-replace-cpu-');
const files = REPLACE_RECORDINGS.map((clips, k) => joinClips(dir, `replace-${k + 1}.flac`, clips));
const pg = await startPostgres();
const env = await teamEnv(pg, 'project_replace_cpu');
let api: ServiceProcess | null = null;
let desk: ServiceProcess | null = null;
const worker = await startWorker(env);
try {
  [api, desk] = await Promise.all([startServiceProcess({ dataDir: env.TAKELINE_DATA_DIR!, env }), startServiceProcess()]);
  const headers = (svc: ServiceProcess) => ({ Authorization: `Bearer ${svc.key}` });
  for (const svc of [api, desk]) await uploadAllTranscribed(svc, 'bench', files);
  const pids = [api.child.pid!, desk.child.pid!, worker.child.pid!];
  const noJobs = async () => (await teamQuery<{ n: number }>(env.TAKELINE_DATABASE_URL!, "SELECT count(*)::int AS n FROM jobs WHERE status IN ('queued', 'running')"))[0]!.n === 0;
  // What an idle API node spends anyway (its queue engine's supervision, sweeps): counted in its figures below.
  await idle(pids, noJobs);
  const idleFrom = processTreeCpuSeconds(api.child.pid!);
  await new Promise((r) => setTimeout(r, 20_000));
  const idleRate = (processTreeCpuSeconds(api.child.pid!) - idleFrom) / 20;
  console.log(`idle API node: ${(idleRate * 1000).toFixed(1)} ms of CPU per second`);
  const sides = [
    { name: 'desktop (in the serving process, as an API node before)', svc: desk, cpu: [] as number[], worker: [] as number[], wall: [] as number[] },
    { name: 'team API node (a worker aligns)', svc: api, cpu: [] as number[], worker: [] as number[], wall: [] as number[] },
  ];
  console.log('round\treplace\tside\tmatches\tlines\tcpu_s\tworker_cpu_s\twall_s');
  for (let round = 1; round <= rounds; round++) {
    for (const [find, replace] of [
      ['the', 'garden'],
      ['garden', 'the'],
    ] as const) {
      // Alternating which goes first, so neither always follows the other's leftovers.
      for (const side of round % 2 ? sides : [...sides].reverse()) {
        await idle(pids, noJobs);
        const cpu = processTreeCpuSeconds(side.svc.child.pid!);
        const workerCpu = processTreeCpuSeconds(worker.child.pid!);
        const started = performance.now();
        const res = await fetch(`${side.svc.url}/v1/speech/projects/bench/transcripts/replace`, {
          method: 'POST',
          headers: { ...headers(side.svc), 'Content-Type': 'application/json' },
          body: JSON.stringify({ find, replace, whole_words: true }),
        });
        const wall = (performance.now() - started) / 1000;
        if (res.status !== 200) throw new Error(`${res.status} ${await res.text()}`);
        const used = processTreeCpuSeconds(side.svc.child.pid!) - cpu;
        const workerUsed = side.svc === api ? processTreeCpuSeconds(worker.child.pid!) - workerCpu : 0;
        const answer = ProjectTranscriptReplaceResult.parse(await res.json());
        const lines = answer.recordings.reduce((n, r) => n + ((r.revision?.edit as { lines?: unknown[] } | null | undefined)?.lines?.length ?? 0), 0);
        side.cpu.push(used);
        side.worker.push(workerUsed);
        side.wall.push(wall);
        console.log(`${round}\t${find}→${replace}\t${side.svc === api ? 'team' : 'desktop'}\t${answer.count}\t${lines}\t${used.toFixed(2)}\t${workerUsed.toFixed(2)}\t${wall.toFixed(2)}`);
      }
    }
  }
  console.log(`\nmedians over ${rounds * 2} requests each (4 recordings):`);
  for (const side of sides) {
    console.log(`${side.name}: serving process ${median(side.cpu).toFixed(2)} CPU-s, worker ${median(side.worker).toFixed(2)} CPU-s, wall ${median(side.wall).toFixed(2)} s`);
  }
  // The node's share of a request beyond what it spends idle over the same time (its polls of the job records).
  {
    const team = sides[1]!;
    console.log(`team API node beyond idle: ${median(team.cpu.map((c, k) => c - idleRate * team.wall[k]!)).toFixed(2)} CPU-s`);
  }
} finally {
  await worker.stop().catch(() => {});
  await api?.stop();
  await desk?.stop();
  await pg.stop();
}
