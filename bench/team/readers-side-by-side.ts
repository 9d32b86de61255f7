/**
 * The team API node's read path, two source trees side by side: one throwaway PostgreSQL, an API node from each
 * tree over a database of its own with a short and a 150-s recording (`--long-seconds`) transcribed and analysed (by a worker of
 * that tree, stopped before reading). Rounds alternate between the trees (the order flips each round, so the
 * machine's load falls on both alike); in each round, for each caller:
 *
 * - one reader, `--single` GETs one after another on the read mix: the median of a read, and the node's CPU per read;
 * - 50 closed-loop readers for `--seconds`: requests per second, p50/p99, and the node's CPU per request.
 *
 * The callers: TAKELINE_API_KEY's key; a stored key of no user; a user's key, the user holding the viewer role
 * for the whole team (in a tree with roles: `npm run users -- role`); the same user's key limited to the project.
 * The last two are what the sign-in, role and audit work reads on every request. Prints each round, then the
 * medians of the rounds, B − A, and the bars: B adds at most 1 ms to the median of a read, and B's p99 under
 * 50 readers stays under 50 ms.
 *
 *   git worktree add /tmp/before <commit> --detach && ln -s "$PWD/node_modules" /tmp/before/node_modules
 *   node --import tsx bench/team/readers-side-by-side.ts /tmp/before . [--rounds 5] [--seconds 10] [--single 400] [--long-seconds 150] [--queued]
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { median } from '../../src/service/dsp/stats';
import { readProcStat } from '../../src/service/proc-stat';
import { audioDir } from '../../test/helpers/paths';
import { startPostgres } from '../../test/helpers/postgres';
import { startServiceProcess, transcriptionSettled, uploadRecording, type ServiceProcess } from '../../test/helpers/service';
import { sessionJobsDone, startWorker, teamEnv } from '../../test/helpers/team';
import { flagValue } from '../lib/args';
import { readLoad, threadCpuSeconds } from '../lib/read-load';

const trees = process.argv.slice(2).filter((a, i, all) => !a.startsWith('--') && !all[i - 1]?.startsWith('--')).map((t) => path.resolve(t));
if (trees.length !== 2) throw new Error('usage: readers-side-by-side.ts <tree A> <tree B> [--rounds 5] [--seconds 10] [--single 400] [--long-seconds 150] [--queued]');
const rounds = Number(flagValue('--rounds') ?? 5);
const seconds = Number(flagValue('--seconds') ?? 10);
const single = Number(flagValue('--single') ?? 400);
/** The long recording's length: 150 s as the team bench reads; shorter when the machine is too loaded to transcribe it in time. */
const longSeconds = flagValue('--long-seconds') ?? '150';
/**
 * `--queued`: no worker; the recordings stay queued and the mix reads their documents (no analysis), the project
 * list and the session list. What a request costs to sign in, check and attribute does not depend on the
 * document, so B − A holds; the p99 is lower than with transcribed documents. For a machine too loaded to
 * transcribe in time.
 */
const queuedOnly = process.argv.includes('--queued');
const loadavg = () => fs.readFileSync('/proc/loadavg', 'utf8').split(' ')[0];

const CALLERS = {
  memory: "TAKELINE_API_KEY's key",
  stored: 'a stored key of no user',
  user: "a team viewer's key",
  limited: "a team viewer's key limited to the project",
} as const;
type Caller = keyof typeof CALLERS;

const scratch = fs.mkdtempSync(path.join(process.env.TMPDIR ?? '/tmp', 'takeline-readers-'));
const long = path.join(scratch, `long-${longSeconds}.flac`);
const cut = spawnSync('ffmpeg', ['-v', 'error', '-t', longSeconds, '-i', path.join(audioDir, 'long', 'read_speech_concat.flac'), '-c:a', 'flac', long]);
if (cut.status !== 0) throw new Error(`ffmpeg: ${cut.stderr}`);
const files = [path.join(audioDir, 'asr', 'ljspeech_LJ001-0001.flac'), long];

interface Node {
  name: string;
  api: ServiceProcess;
  paths: string[];
  keys: Record<Caller, string>;
}

function cli(tree: string, env: Record<string, string>, args: string[]): string {
  const run = spawnSync(process.execPath, ['--import', 'tsx', ...args], { cwd: tree, env: { ...process.env, ...env }, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`${args.join(' ')}: ${run.stderr}`);
  return run.stdout.trim();
}

/** `n` GETs one after another on the read mix: the median's ms (the client's wall time per read). */
async function oneReader(node: Node, key: string, n: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = process.hrtime.bigint();
    const res = await fetch(node.api.url + node.paths[i % node.paths.length]!, { headers: { Authorization: `Bearer ${key}` } });
    await res.arrayBuffer();
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
    if (res.status !== 200) throw new Error(`read: ${res.status}`);
  }
  return median(times)!;
}

const pg = await startPostgres();
const nodes: Node[] = [];
const started: ServiceProcess[] = [];
try {
  for (const [i, tree] of trees.entries()) {
    const env = await teamEnv(pg, `readers_${i}`);
    const api = await startServiceProcess({ env, dataDir: env.TAKELINE_DATA_DIR, cwd: tree, startMs: 600_000 });
    started.push(api);
    const worker = queuedOnly ? null : await startWorker(env, tree);
    const ids: string[] = [];
    for (const file of files) ids.push(await uploadRecording(api, fs.readFileSync(file), path.basename(file), 'p1'));
    if (worker) {
      for (const id of ids) {
        await transcriptionSettled(api, id, 1_800_000);
        await sessionJobsDone(env.TAKELINE_DATABASE_URL!, id, 1_800_000);
      }
      await worker.stop();
    }
    const keys = {
      memory: api.key,
      stored: cli(tree, env, ['src/service/cli/keys.ts', 'create', 'reader']),
      user: cli(tree, env, ['src/service/cli/keys.ts', 'create', 'reader', '--user', 'vera']),
      limited: cli(tree, env, ['src/service/cli/keys.ts', 'create', 'reader', '--user', 'vera', '--projects', 'p1']),
    };
    // A tree with roles: the user reads as a viewer of the whole team (a user only owning keys keeps their powers).
    const roles = fs.existsSync(path.join(tree, 'src/service/cli/users.ts'));
    if (roles) cli(tree, env, ['src/service/cli/users.ts', 'role', 'vera', 'viewer']);
    const documents = ids.flatMap((id) => (queuedOnly ? [`/v1/speech/transcriptions/${id}`] : [`/v1/speech/transcriptions/${id}`, `/v1/speech/transcriptions/${id}/intelligence`]));
    const paths = [...documents, '/v1/speech/projects', '/v1/speech/transcriptions?project=p1'];
    const name = `${String.fromCharCode(65 + i)} (${tree}${roles ? ', roles' : ''})`;
    const node: Node = { name, api, paths, keys };
    // Warm-up: every caller's path through the node once, JIT and pools ready.
    for (const caller of Object.keys(CALLERS) as Caller[]) await oneReader(node, keys[caller], 40);
    nodes.push(node);
  }
  type Row = { singleMs: number; singleCpu: number; perSecond: number; p50: number; p99: number; cpu: number; mainCpu: number };
  const results = new Map<string, Row[]>();
  for (let round = 0; round < rounds; round++) {
    for (const caller of Object.keys(CALLERS) as Caller[]) {
      for (const node of round % 2 ? [...nodes].reverse() : nodes) {
        const pid = node.api.child.pid!;
        const key = node.keys[caller];
        const c0 = readProcStat(pid).cpuSeconds;
        const singleMs = await oneReader(node, key, single);
        const singleCpu = ((readProcStat(pid).cpuSeconds - c0) * 1e6) / single;
        const cpu0 = readProcStat(pid).cpuSeconds;
        const main0 = threadCpuSeconds(pid);
        const r = await readLoad({ url: node.api.url, paths: node.paths, headers: { Authorization: `Bearer ${key}` }, seconds, connections: 50, mode: 'plain' });
        const cpu = ((readProcStat(pid).cpuSeconds - cpu0) * 1e6) / r.requests;
        const mainCpu = ((threadCpuSeconds(pid) - main0) * 1e6) / r.requests;
        const label = `${node.name}|${caller}`;
        if (!results.has(label)) results.set(label, []);
        results.get(label)!.push({ singleMs, singleCpu, perSecond: r.requests / seconds, p50: r.p50, p99: r.p99, cpu, mainCpu });
        console.log(
          `round ${round + 1}, ${node.name.split(' ')[0]}, ${CALLERS[caller]}: one reader median ${singleMs.toFixed(2)} ms (${singleCpu.toFixed(0)} µs CPU); ` +
            `50 readers ${(r.requests / seconds).toFixed(0)}/s, p50 ${r.p50} ms, p99 ${r.p99} ms, ${r.errors} errors, ${cpu.toFixed(0)} µs CPU per request (main thread ${mainCpu.toFixed(0)}); load ${loadavg()}`,
        );
        if (r.errors) throw new Error(`${r.errors} errors reading as ${CALLERS[caller]} from ${node.name}`);
      }
    }
  }
  const m = (rows: Row[], pick: (r: Row) => number) => median(rows.map(pick))!;
  console.log(`\nmedians of ${rounds} rounds (one reader: ${single} reads; 50 readers: ${seconds} s); A = ${nodes[0]!.name}, B = ${nodes[1]!.name}`);
  for (const caller of Object.keys(CALLERS) as Caller[]) {
    const [a, b] = nodes.map((n) => results.get(`${n.name}|${caller}`)!) as [Row[], Row[]];
    const line = (rows: Row[]) =>
      `one reader ${m(rows, (r) => r.singleMs).toFixed(2)} ms (${m(rows, (r) => r.singleCpu).toFixed(0)} µs); 50 readers ${m(rows, (r) => r.perSecond).toFixed(0)}/s, p50 ${m(rows, (r) => r.p50)} ms, p99 ${m(rows, (r) => r.p99)} ms, ${m(rows, (r) => r.cpu).toFixed(0)} µs per request`;
    const dSingle = m(b, (r) => r.singleMs) - m(a, (r) => r.singleMs);
    const dP50 = m(b, (r) => r.p50) - m(a, (r) => r.p50);
    const dCpu = m(b, (r) => r.cpu) - m(a, (r) => r.cpu);
    const p99 = m(b, (r) => r.p99);
    console.log(`  ${CALLERS[caller]}:\n    A: ${line(a)}\n    B: ${line(b)}`);
    console.log(
      `    B − A: one reader's median ${dSingle >= 0 ? '+' : ''}${dSingle.toFixed(2)} ms, 50 readers' p50 ${dP50 >= 0 ? '+' : ''}${dP50} ms, CPU ${dCpu >= 0 ? '+' : ''}${dCpu.toFixed(0)} µs per request; ` +
        `bars: median +≤ 1 ms ${Math.max(dSingle, dP50) <= 1 ? 'met' : 'MISSED'}, B's p99 < 50 ms ${p99 < 50 ? 'met' : 'MISSED'} (${p99} ms)`,
    );
  }
} finally {
  for (const api of started) await api.stop();
  await pg.stop();
  fs.rmSync(scratch, { recursive: true, force: true });
}
