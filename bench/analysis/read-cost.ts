/**
 * What one read costs the service's event loop, for this checkout and optionally another one side by side:
 * GET session and GET …/intelligence of long/'s transcript (complete), plain and as pollers (If-None-Match).
 *
 *   node --import tsx bench/analysis/read-cost.ts [--baseline /path/to/other/checkout] [--rounds 2]
 *
 * For each build, route and mode: requests at one connection in 4 s with the CPU time of the service's main
 * thread per request (utime + stime from /proc: it hardly depends on what else the host runs, so builds can be
 * compared on a busy machine), then p50/p99 at 50 connections for 6 s. Builds alternate, `--rounds` times.
 * The baseline is started from its own checkout; it gets a data folder at the highest migration it knows.
 * The transcript comes from the analysis bench's cache (run `node --import tsx bench/analysis/run.ts
 * --skip-hour --skip-latency` once first).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { hostNote, readLoad, threadCpuSeconds, type ReadMode } from '../lib/read-load';
import { openDatabase } from '../../src/service/storage/database';
import { MIGRATIONS } from '../../src/service/storage/migrations';
import { openStores } from '../../src/service/storage/stores';
import { SqliteSql } from '../../src/service/storage/sql/sqlite-sql';
import type { Transcript } from '../../src/service/speech/types';
import { flagValue as arg } from '../lib/args';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const baseline = arg('--baseline');
const rounds = Number(arg('--rounds') ?? 2);
const cacheDir = path.join(os.tmpdir(), 'takeline-bench-cache');
const cached = fs.existsSync(cacheDir) ? fs.readdirSync(cacheDir).find((f) => /^long-[0-9a-f]+\.json$/.test(f)) : undefined;
if (!cached) throw new Error('No cached transcript of long/: run `node --import tsx bench/analysis/run.ts --skip-hour --skip-latency` once.');
const transcript = JSON.parse(fs.readFileSync(path.join(cacheDir, cached), 'utf8')) as Transcript;
const id = '6f1c2d3e-4a5b-4c6d-8e7f-8091a2b3c4d5';

/** The baseline's highest migration, read from its source (a data folder it can open). */
function schemaOf(repo: string): number {
  const text = fs.readFileSync(path.join(repo, 'src/service/storage/migrations.ts'), 'utf8');
  return Math.max(...[...text.matchAll(/version: (\d+)/g)].map((m) => Number(m[1])));
}

async function prepare(dir: string, schema: number): Promise<void> {
  fs.mkdirSync(dir, { recursive: true });
  const db = openDatabase(path.join(dir, 'takeline.db'), MIGRATIONS.filter((m) => m.version <= schema));
  const { projects, sessions } = openStores(new SqliteSql(db));
  const project = await projects.create('read-cost', 'Read cost');
  const format = { container: 'flac', codec: 'flac', sample_rate: 16000, channels: 1, size_bytes: 1, content_type: 'audio/flac', has_video: false };
  await sessions.insert({ id, projectId: project.id, fileName: 'long.flac', storedName: 'original.flac', duration: transcript.duration, format: format as never, language: 'en' });
  await sessions.complete(id, transcript);
  db.close();
}

async function start(repo: string, dataDir: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/service/cli/serve.ts'], {
    cwd: repo,
    env: { ...process.env, TAKELINE_PORT: '0', TAKELINE_DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setInterval(() => {
      const match = /takeline listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (match && /signin\?token=/.test(out)) {
        clearInterval(timer);
        resolve(match[1]!);
      }
    }, 100);
    child.on('exit', () => reject(new Error(`service exited:\n${out}`)));
  });
  const key = fs.readFileSync(path.join(dataDir, 'secrets', 'studio-api-key'), 'utf8').trim();
  return { url, pid: child.pid!, headers: { Authorization: `Bearer ${key}` }, stop: () => child.kill('SIGTERM') };
}

const base = fs.mkdtempSync(path.join(os.tmpdir(), 'takeline-read-cost-'));
const builds: Array<{ name: string; repo: string; modes: ReadMode[] }> = [];
if (baseline) builds.push({ name: 'baseline', repo: path.resolve(baseline), modes: ['plain'] });
builds.push({ name: 'this', repo: repoRoot, modes: ['plain', 'poll'] });
const services = [];
for (const build of builds) {
  const dir = path.join(base, build.name);
  await prepare(dir, Math.min(schemaOf(build.repo), schemaOf(repoRoot)));
  services.push({ ...build, svc: await start(build.repo, dir) });
}
process.stdout.write(`read cost on ${hostNote()}\n`);
const routes = { session: `/v1/speech/transcriptions/${id}`, intelligence: `/v1/speech/transcriptions/${id}/intelligence` };
try {
  for (let round = 1; round <= rounds; round++) {
    for (const { name, svc, modes } of services) {
      for (const [route, p] of Object.entries(routes)) {
        for (const mode of modes) {
          const cpu0 = threadCpuSeconds(svc.pid);
          const one = await readLoad({ url: svc.url, paths: [p], headers: svc.headers, seconds: 4, connections: 1, mode });
          const cpuMs = ((threadCpuSeconds(svc.pid) - cpu0) * 1000) / one.requests;
          const fifty = await readLoad({ url: svc.url, paths: [p], headers: svc.headers, seconds: 6, connections: 50, mode });
          process.stdout.write(
            `  round ${round} ${name.padEnd(8)} ${route.padEnd(12)} ${mode.padEnd(5)} 1 conn: ${one.requests} req, loop CPU ${cpuMs.toFixed(3)} ms/req | ` +
              `50 conn: p50 ${fifty.p50} p99 ${fifty.p99} max ${fifty.max} ms, ${fifty.requests} req, ${fifty.errors} errors, ${fifty.not_modified} × 304 | load ${os.loadavg()[0]!.toFixed(1)}\n`,
          );
        }
      }
    }
  }
} finally {
  for (const { svc } of services) svc.stop();
  await new Promise((r) => setTimeout(r, 2000));
  fs.rmSync(base, { recursive: true, force: true });
}
