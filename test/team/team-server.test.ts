import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresPool } from '../../src/service/storage/sql/postgres-sql';
import { modelsDir, audioDir, repoRoot } from '../helpers/paths';
import { startPostgres, type ThrowawayPostgres } from '../helpers/postgres';
import { multipartBody, rawRequest, startServiceProcess, type ServiceProcess } from '../helpers/service';
import { tempDir } from '../helpers/temp';

/** A `npm run worker` process of the team, with its output kept. */
interface Worker {
  child: ChildProcess;
  output(): string;
  kill(): Promise<void>;
  stop(): Promise<void>;
}

async function startWorker(env: Record<string, string>): Promise<Worker> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/service/cli/worker.ts'], { cwd: repoRoot, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker did not start:\n${out}`)), 60_000);
    child.stdout!.on('data', () => {
      if (out.includes('takeline worker ready')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.on('exit', () => reject(new Error(`worker exited:\n${out}`)));
  });
  return {
    child,
    output: () => out,
    kill: async () => {
      child.kill('SIGKILL');
      await exited;
    },
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

let pg: ThrowawayPostgres;
beforeAll(async () => {
  pg = await startPostgres();
}, 60_000);
afterAll(async () => {
  await pg?.stop();
});

describe('team server: an API node and workers over PostgreSQL', () => {
  it('transcribes on the workers, not the API node, and a worker killed mid-transcription hands the job to another that finishes it once', { timeout: 600_000 }, async () => {
    const admin = openPostgresPool(pg.url, 1);
    await admin.query('CREATE DATABASE team_server');
    await admin.end();
    const dataDir = tempDir('takeline-team-');
    const env = { TAKELINE_DATABASE_URL: pg.url.replace(/\/[^/]*$/, '/team_server'), TAKELINE_DATA_DIR: dataDir, TAKELINE_MODELS_DIR: modelsDir };
    const workers: Worker[] = [];
    let api: ServiceProcess | null = null;
    try {
      api = await startServiceProcess({ dataDir, env });
      workers.push(await startWorker(env), await startWorker(env));
      const auth = { Authorization: `Bearer ${api.key}` };
      // A minute of real conversation (the 30-s sample twice): long enough to be killed in the middle.
      const sample = fs.readFileSync(path.join(audioDir, 'diarization', 'sample.flac'));
      const upload = async (file: Buffer, name: string) => {
        const { body, contentType } = multipartBody([
          { name: 'project_key', value: 'team' },
          { name: 'file', file, filename: name },
        ]);
        const res = await rawRequest(`${api!.url}/v1/speech/transcriptions`, { method: 'POST', headers: { ...auth, 'Content-Type': contentType }, body });
        expect(res.status).toBe(201);
        return res.json().id as string;
      };
      const session = async (id: string) => (await (await fetch(`${api!.url}/v1/speech/transcriptions/${id}`, { headers: auth })).json()) as { status: string; progress: number; error: string | null; segments?: unknown[] };
      const id = await upload(sample, 'sample.flac');
      // The worker that took the job says so; it is killed once the transcription is under way.
      let victim: Worker | undefined;
      for (let i = 0; i < 600 && !victim; i++) {
        victim = workers.find((w) => w.output().includes(`(transcribe) started, attempt 1`));
        if (!victim) await new Promise((r) => setTimeout(r, 100));
      }
      expect(victim, 'a worker started the transcription').toBeDefined();
      for (let i = 0; i < 1200 && (await session(id)).progress < 0.2; i++) await new Promise((r) => setTimeout(r, 100));
      expect((await session(id)).status).toBe('running');
      await victim!.kill();
      const survivor = workers.find((w) => w !== victim)!;
      let done = await session(id);
      for (let i = 0; i < 3000 && done.status !== 'complete' && done.status !== 'failed'; i++) {
        await new Promise((r) => setTimeout(r, 200));
        done = await session(id);
      }
      expect(done.status, done.error ?? '').toBe('complete');
      expect(survivor.output()).toMatch(/\(transcribe\) started, attempt 2/);
      // The API node recognised nothing itself.
      expect(api.output()).not.toMatch(/\(transcribe\) started/);
      const { transcript } = (await (await fetch(`${api.url}/v1/speech/transcriptions/${id}`, { headers: auth })).json()) as { transcript: { speakers: string[]; segments: Array<{ text: string; speaker: string }> } };
      expect(transcript.segments.map((s) => s.text).join(' ').length).toBeGreaterThan(20);
      expect(transcript.segments.every((seg) => transcript.speakers.includes(seg.speaker))).toBe(true);
      // Exactly one job, run twice (the kill, then the finish), and the upload byte for byte.
      const pool = openPostgresPool(env.TAKELINE_DATABASE_URL, 1);
      const jobs = (await pool.query("SELECT kind, status, attempts FROM jobs WHERE session_id = $1 AND kind = 'transcribe'", [id])).rows;
      await pool.end();
      expect(jobs).toEqual([{ kind: 'transcribe', status: 'complete', attempts: 2 }]);
      const { url } = (await (await fetch(`${api.url}/v1/speech/transcriptions/${id}/audio`, { headers: auth })).json()) as { url: string };
      const original = await fetch(url);
      expect(original.status).toBe(200);
      const sha = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');
      expect(sha(Buffer.from(await original.arrayBuffer()))).toBe(sha(sample));
    } finally {
      for (const w of workers) await w.stop().catch(() => {});
      await api?.stop();
    }
  });
});
