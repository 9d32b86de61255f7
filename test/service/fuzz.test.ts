import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { startServiceProcess, type ServiceProcess } from '../helpers/service';
import { startPostgres, type ThrowawayPostgres } from '../helpers/postgres';
import { startWorker, teamEnv, type Worker } from '../helpers/team';
import { repoRoot } from '../helpers/paths';
import { runFuzz, seedFixtures } from '../helpers/fuzz/run-fuzz';
import type { FuzzFixtures } from '../helpers/fuzz/requests';
import { openApiDocument } from '../../src/service/openapi/document';

// The fast tier: a fixed seed, so CI sends the same requests every time. The long run (more requests,
// other seeds) is `npm run bench -- reliability`.
const SEED = Number(process.env.TAKELINE_FUZZ_SEED ?? 13);
const RUNS = Number(process.env.TAKELINE_FUZZ_RUNS ?? 600);

/** The team server's rows live in PostgreSQL: the same requests go to an API node over a throwaway one, with a worker. */
describe.each(['embedded', 'team'] as const)('requests generated from the OpenAPI document (%s)', (mode) => {
  let svc: ServiceProcess;
  let fixtures: FuzzFixtures;
  let pg: ThrowawayPostgres | null = null;
  let worker: Worker | null = null;
  let team: Record<string, string> = {};
  beforeAll(async () => {
    if (mode === 'team') {
      pg = await startPostgres();
      team = await teamEnv(pg, 'fuzz');
    }
    // No models folder (nothing there may be deleted) and a Whisper mirror that refuses at once.
    const env = { ...team, TAKELINE_MODELS_DIR: '', TAKELINE_WHISPER_BASE_URL: 'http://127.0.0.1:9' };
    svc = await startServiceProcess({ env, dataDir: team.TAKELINE_DATA_DIR });
    if (mode === 'team') worker = await startWorker(env);
    // A third-party tool's key limited to another project: everything of the seeded one must stay out of its reach.
    const elsewhere = await fetch(`${svc.url}/v1/speech/projects`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${svc.key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ key: 'elsewhere', name: 'Elsewhere' }),
    });
    expect(elsewhere.status).toBe(201);
    const made = spawnSync(process.execPath, ['--import', 'tsx', 'src/service/cli/keys.ts', 'create', 'tool', '--projects', 'elsewhere'], {
      cwd: repoRoot,
      env: { ...process.env, ...team, TAKELINE_DATA_DIR: svc.dataDir },
      encoding: 'utf8',
    });
    expect(made.status, made.stderr).toBe(0);
    fixtures = await seedFixtures(svc.url, svc.key, made.stdout.trim());
  }, 180_000);
  afterAll(async () => {
    await worker?.stop();
    await svc?.stop();
    await pg?.stop();
  });

  it(`never 5xx, never a leak, always the prefix's error shape, a key everywhere but the open routes, nothing stored when refused (seed ${SEED}, ${RUNS} requests)`, async () => {
    const report = await runFuzz({ url: svc.url, dataDir: svc.dataDir, databaseUrl: team.TAKELINE_DATABASE_URL, doc: openApiDocument() as never, fixtures, seed: SEED, runs: RUNS });
    console.log(`fuzz (${mode}): ${report.tried} requests, ${report.unchangedChecked} refusals checked for changes, statuses ${JSON.stringify(report.byStatus)}`);
    if (report.failures.length) console.error(JSON.stringify(report.failures.slice(0, 40), null, 1));
    expect(report.tried).toBe(RUNS);
    expect(report.failures).toEqual([]);
    // The run must have exercised refusals and acceptances, and compared the stored data for refusals.
    expect(Object.keys(report.byStatus).filter((s) => s.startsWith('2')).length).toBeGreaterThan(0);
    expect(report.byStatus['401']).toBeGreaterThan(0);
    expect(report.byStatus['404']).toBeGreaterThan(0);
    expect(report.unchangedChecked).toBeGreaterThan(RUNS / 4);
    expect(svc.output()).not.toMatch(/error on /);
    // Every refused or finished upload removed its temporary file (a team node's are under uploads/<host>-<pid>).
    const left = fs.readdirSync(path.join(svc.dataDir, 'uploads'), { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
    expect(left.map((e) => e.name)).toEqual([]);
  }, 400_000);
});
