/**
 * The team API node's read path, two source trees side by side: one throwaway PostgreSQL, an API node from each
 * tree over a database of its own with a short and a 150-s recording transcribed and analysed (by a worker of
 * that tree, stopped before reading), then 50 closed-loop readers on the team bench's read mix, rounds
 * alternating between the trees, with TAKELINE_API_KEY's key and with a stored key. Prints each round, then the
 * medians: requests per second, p50/p99, and the node's main-thread CPU per request.
 *
 *   git worktree add /tmp/before <commit> --detach && ln -s "$PWD/node_modules" /tmp/before/node_modules
 *   node --import tsx bench/team/readers-side-by-side.ts /tmp/before . [--rounds 3] [--seconds 10]
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { median } from '../../src/service/dsp/stats';
import { audioDir } from '../../test/helpers/paths';
import { startPostgres } from '../../test/helpers/postgres';
import { startServiceProcess, transcriptionSettled, uploadRecording, type ServiceProcess } from '../../test/helpers/service';
import { sessionJobsDone, startWorker, teamEnv } from '../../test/helpers/team';
import { flagValue } from '../lib/args';
import { readLoad, threadCpuSeconds } from '../lib/read-load';

const trees = process.argv.slice(2).filter((a, i, all) => !a.startsWith('--') && !all[i - 1]?.startsWith('--')).map((t) => path.resolve(t));
if (trees.length !== 2) throw new Error('usage: readers-side-by-side.ts <tree A> <tree B> [--rounds 3] [--seconds 10]');
const rounds = Number(flagValue('--rounds') ?? 3);
const seconds = Number(flagValue('--seconds') ?? 10);
const loadavg = () => fs.readFileSync('/proc/loadavg', 'utf8').split(' ')[0];

const scratch = fs.mkdtempSync(path.join(process.env.TMPDIR ?? '/tmp', 'takeline-readers-'));
const long = path.join(scratch, 'long-150.flac');
const cut = spawnSync('ffmpeg', ['-v', 'error', '-t', '150', '-i', path.join(audioDir, 'long', 'read_speech_concat.flac'), '-c:a', 'flac', long]);
if (cut.status !== 0) throw new Error(`ffmpeg: ${cut.stderr}`);
const files = [path.join(audioDir, 'asr', 'ljspeech_LJ001-0001.flac'), long];

interface Node {
  name: string;
  api: ServiceProcess;
  paths: string[];
  keys: Record<'memory' | 'stored', string>;
}

const pg = await startPostgres();
const nodes: Node[] = [];
try {
  for (const [i, tree] of trees.entries()) {
    const env = await teamEnv(pg, `readers_${i}`);
    const api = await startServiceProcess({ env, dataDir: env.TAKELINE_DATA_DIR, cwd: tree });
    const worker = await startWorker(env, tree);
    const ids: string[] = [];
    for (const file of files) ids.push(await uploadRecording(api, fs.readFileSync(file), path.basename(file), 'p1'));
    for (const id of ids) {
      await transcriptionSettled(api, id, 600_000);
      await sessionJobsDone(env.TAKELINE_DATABASE_URL!, id, 600_000);
    }
    await worker.stop();
    const made = spawnSync(process.execPath, ['--import', 'tsx', 'src/service/cli/keys.ts', 'create', 'reader'], { cwd: tree, env: { ...process.env, ...env }, encoding: 'utf8' });
    if (made.status !== 0) throw new Error(`keys create: ${made.stderr}`);
    const paths = [...ids.flatMap((id) => [`/v1/speech/transcriptions/${id}`, `/v1/speech/transcriptions/${id}/intelligence`]), '/v1/speech/projects', '/v1/speech/transcriptions?project=p1'];
    nodes.push({ name: `${String.fromCharCode(65 + i)} (${tree})`, api, paths, keys: { memory: api.key, stored: made.stdout.trim() } });
  }
  const results = new Map<string, Array<{ perSecond: number; p50: number; p99: number; cpuMicros: number }>>();
  for (let round = 0; round < rounds; round++) {
    for (const key of ['memory', 'stored'] as const) {
      for (const node of round % 2 ? [...nodes].reverse() : nodes) {
        const cpu0 = threadCpuSeconds(node.api.child.pid!);
        const r = await readLoad({ url: node.api.url, paths: node.paths, headers: { Authorization: `Bearer ${node.keys[key]}` }, seconds, connections: 50, mode: 'plain' });
        const cpuMicros = ((threadCpuSeconds(node.api.child.pid!) - cpu0) * 1e6) / r.requests;
        const label = `${node.name}, ${key === 'memory' ? "TAKELINE_API_KEY's key" : 'a stored key'}`;
        if (!results.has(label)) results.set(label, []);
        results.get(label)!.push({ perSecond: r.requests / seconds, p50: r.p50, p99: r.p99, cpuMicros });
        console.log(`round ${round + 1}, ${label}: ${(r.requests / seconds).toFixed(0)}/s, p50 ${r.p50} ms, p99 ${r.p99} ms, ${r.errors} errors, node ${cpuMicros.toFixed(0)} µs CPU per request; load ${loadavg()}`);
      }
    }
  }
  console.log(`\nmedians of ${rounds} rounds of ${seconds} s:`);
  for (const [label, rows] of results) {
    const m = (pick: (r: (typeof rows)[number]) => number) => median(rows.map(pick))!;
    console.log(`  ${label}: ${m((r) => r.perSecond).toFixed(0)} requests/s, p50 ${m((r) => r.p50)} ms, p99 ${m((r) => r.p99)} ms, ${m((r) => r.cpuMicros).toFixed(0)} µs per request`);
  }
} finally {
  for (const node of nodes) await node.api.stop();
  await pg.stop();
  fs.rmSync(scratch, { recursive: true, force: true });
}
