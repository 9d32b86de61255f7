import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Manifest } from '../../src/service/backup/format';
import { pocketSphinxAvailable } from '../../src/service/speech/recognition/pocketsphinx-recognizer';
import { resolveSphinxtrain } from '../../src/service/speech/recognition/pocketsphinx/adaptation';
import { createSession, dubMaster, referenceLines, uploadDub } from '../helpers/dubs';
import { audioDir, modelsDir, repoRoot } from '../helpers/paths';
import { until } from '../helpers/poll';
import { postgresPerFile } from '../helpers/postgres-per-file';
import { cephInstalled, startS3, type ThrowawayS3 } from '../helpers/s3';
import { multipartBody, startServiceProcess, type ServiceProcess } from '../helpers/service';
import { startWorker, teamEnv, teamQuery, type Worker } from '../helpers/team';
import { tempDir } from '../helpers/temp';

const pg = postgresPerFile();
const sha = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');

/** Runs an npm script's program (`backup`, `restore`, `keys`) with the environment given; its exit code and output. */
function npmScript(script: string, args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', `src/service/cli/${script}.ts`, ...args], { cwd: repoRoot, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A client of one node with one key. */
function client(svc: ServiceProcess, key = svc.key) {
  const headers = { Authorization: `Bearer ${key}` };
  const get = async (p: string) => {
    const res = await fetch(`${svc.url}${p}`, { headers });
    if (res.status !== 200) throw new Error(`GET ${p}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  const send = async (method: string, p: string, body: unknown) => {
    const res = await fetch(`${svc.url}${p}`, { method, headers: { ...headers, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  /** The bytes behind a document's signed audio address. */
  const bytes = async (p: string) => {
    const { url } = (await get(p)) as { url: string };
    const res = await fetch(url);
    if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
    return Buffer.from(await res.arrayBuffer());
  };
  return { get, send, bytes, status: async (p: string) => (await fetch(`${svc.url}${p}`, { headers })).status };
}

/** A document with the node's own addresses (signed, per node) taken out, to compare two nodes' answers. */
function portable(doc: unknown): unknown {
  return JSON.parse(JSON.stringify(doc), (key, value: unknown) => (typeof value === 'string' && /^https?:\/\//.test(value) ? '<address>' : key === 'expires_at' ? '<expiry>' : value));
}

/** Everything a recording shows through the API, and the sha256 of its original and of every dub revision's audio. */
async function recordingView(c: ReturnType<typeof client>, id: string): Promise<Record<string, unknown>> {
  const base = `/v1/speech/transcriptions/${id}`;
  const view: Record<string, unknown> = {
    session: portable(await c.get(base)),
    revisions: portable(await c.get(`${base}/transcript/revisions`)),
    markers: portable(await c.get(`${base}/markers`)),
    original: sha(await c.bytes(`${base}/audio`)),
  };
  const dubs = (await c.get(`${base}/dubs`)) as { data: Array<{ id: string }> };
  view.dubs = portable(dubs);
  for (const dub of dubs.data) {
    const d = `${base}/dubs/${dub.id}`;
    const revisions = (await c.get(`${d}/revisions`)) as { data: Array<{ number: number }> };
    view[`dub ${dub.id}`] = {
      doc: portable(await c.get(d)),
      lines: portable(await c.get(`${d}/lines`)),
      revisions: portable(revisions),
      revoices: portable(await c.get(`${d}/revoices`)),
      audio: await Promise.all(revisions.data.map(async (r) => [r.number, sha(await c.bytes(`${d}/revisions/${r.number}/audio`))])),
    };
  }
  return view;
}

/** A dub of the recording with one line corrected and revoiced (revision 2). */
async function dubWithRevoice(svc: ServiceProcess, sessionId: string, dir: string): Promise<{ id: string; revisions: number }> {
  const created = await uploadDub(svc, sessionId, [
    { name: 'file', file: fs.readFileSync(dubMaster(dir, 12, { rate: 16000, channels: 1, codec: 'pcm_s16le' })), filename: 'dub.wav' },
    { name: 'lines', value: JSON.stringify(referenceLines(12)) },
    { name: 'voices', value: JSON.stringify({ S1: 'flite/rms', S2: 'flite/rms' }) },
  ]);
  expect(created.status, created.text()).toBe(201);
  const dubId = created.json().id as string;
  const c = client(svc);
  const d = `/v1/speech/transcriptions/${sessionId}/dubs/${dubId}`;
  await until(() => c.get(d), (doc) => doc.status === 'ready', 120_000);
  await c.send('PATCH', `${d}/lines/1`, { text: 'Printing, in the only sense with which we are at present concerned.' });
  const started = await fetch(`${svc.url}${d}/revoice?wait=1`, { method: 'POST', headers: { Authorization: `Bearer ${svc.key}` } });
  expect([200, 202]).toContain(started.status);
  const revoice = (await started.json()) as { id: string };
  const done = await until(() => c.get(`${d}/revoices/${revoice.id}`), (r) => r.status === 'complete' || r.status === 'failed', 300_000);
  expect(done.status, JSON.stringify(done.error)).toBe('complete');
  return { id: dubId, revisions: (await c.get(`${d}/revisions`)).data.length };
}

async function settled(svc: ServiceProcess, id: string) {
  return until(() => client(svc).get(`/v1/speech/transcriptions/${id}`), (s) => s.status === 'complete' || s.status === 'failed', 300_000);
}

/** The ids of a team's keys, users and key scopes, row by row. */
async function keyRows(url: string) {
  return {
    keys: await teamQuery(url, 'SELECT id, hash, hint, name, user_id, scope, created_at, revoked_at FROM api_keys ORDER BY id'),
    users: await teamQuery(url, 'SELECT * FROM users ORDER BY id'),
    scopes: await teamQuery(url, 'SELECT * FROM api_key_projects ORDER BY key_id, project_id'),
  };
}

describe.skipIf(!cephInstalled())('backup and restore of a team', () => {
  it('backs a serving team up while an upload runs and restores it onto another database and S3: every document, audio byte, revision and key matches, the upload in flight whole or absent', { timeout: 1_200_000 }, async () => {
    const env = await teamEnv(pg(), 'backup_source');
    const work = tempDir('takeline-backup-work-');
    let api: ServiceProcess | null = null;
    let worker: Worker | null = null;
    let restoredApi: ServiceProcess | null = null;
    let gateway: ThrowawayS3 | null = null;
    try {
      api = await startServiceProcess({ dataDir: env.TAKELINE_DATA_DIR!, env });
      worker = await startWorker(env);
      const c = client(api);
      // Two projects, each with a recording transcribed by the worker; one corrected, marked, dubbed and revoiced.
      const first = await createSession(api, 'show');
      const second = await createSession(api, 'other');
      expect((await settled(api, first)).status).toBe('complete');
      expect((await settled(api, second)).status).toBe('complete');
      const segment = ((await c.get(`/v1/speech/transcriptions/${first}`)) as { transcript: { segments: Array<{ id: number }> } }).transcript.segments[0]!.id;
      await c.send('PATCH', `/v1/speech/transcriptions/${first}/transcript/segments/${segment}`, { text: 'A printed line, corrected by hand.' });
      await c.send('POST', `/v1/speech/transcriptions/${first}/markers`, { time: 1.25, name: 'cut here' });
      const dub = await dubWithRevoice(api, first, work);
      expect(dub.revisions).toBe(2);
      // A user with a key limited to one project, and a revoked key.
      const created = await npmScript('keys', ['create', 'ann-laptop', '--user', 'ann', '--projects', 'show'], env);
      expect(created.code, created.stderr).toBe(0);
      const annKey = created.stdout.trim();
      const revoked = await npmScript('keys', ['create', 'old'], env);
      const revokedId = /created key (\S+)/.exec(revoked.stderr)![1]!;
      expect((await npmScript('keys', ['revoke', revokedId], env)).code).toBe(0);

      // Every job the edits queued done (analysis, adaptation), so the two teams' documents can agree.
      await until(() => teamQuery<{ n: number }>(env.TAKELINE_DATABASE_URL!, "SELECT count(*) AS n FROM jobs WHERE status IN ('queued', 'running')"), (rows) => Number(rows[0]!.n) === 0, 300_000);

      // An upload in flight: half its body sent, the rest only after the backup has finished.
      const upload = fs.readFileSync(path.join(audioDir, 'asr', 'ljspeech_LJ001-0001.flac'));
      const { body, contentType } = multipartBody([
        { name: 'project_key', value: 'show' },
        { name: 'file', file: upload, filename: 'in-flight.flac' },
      ]);
      const target = new URL(`${api.url}/v1/speech/transcriptions`);
      const request = http.request({ host: target.hostname, port: target.port, path: target.pathname, method: 'POST', headers: { Authorization: `Bearer ${api.key}`, 'Content-Type': contentType, 'Content-Length': body.length } });
      const answer = new Promise<{ status: number; id?: string }>((resolve, reject) => {
        request.on('response', (res) => {
          let text = '';
          res.on('data', (d) => (text += d));
          res.on('end', () => resolve({ status: res.statusCode!, id: (JSON.parse(text) as { id?: string }).id }));
        });
        request.on('error', reject);
      });
      request.write(body.subarray(0, body.length >> 1));

      const folder = path.join(work, 'backup');
      const backup = await npmScript('backup', [folder], env);
      expect(backup.code, backup.stderr).toBe(0);
      request.end(body.subarray(body.length >> 1));
      const inFlight = await answer;
      expect(inFlight.status).toBe(201);
      const manifest = JSON.parse(fs.readFileSync(path.join(folder, 'manifest.json'), 'utf8')) as Manifest;
      expect(manifest.left_out).toEqual([]);
      // Whole or absent: either the backup has its row and its whole file, or neither.
      const inBackup = manifest.blobs.filter((b) => b.key.startsWith(`recordings/${inFlight.id}/`));
      const rowInBackup = fs.readFileSync(path.join(folder, 'tables', 'sessions.jsonl'), 'utf8').includes(`"${inFlight.id}"`);
      if (rowInBackup) expect(inBackup.find((b) => b.key.endsWith('/original.flac'))?.sha256).toBe(sha(upload));
      else expect(inBackup).toEqual([]);

      // Another database and an S3 bucket, restored while nothing serves them.
      gateway = await startS3();
      const bucket = await gateway.bucket('restored', 'team/');
      const restoredEnv: Record<string, string> = {
        ...(await teamEnv(pg(), 'backup_target')),
        TAKELINE_STORAGE_URL: 's3://restored/team',
        TAKELINE_S3_ENDPOINT: gateway.endpoint,
        TAKELINE_S3_REGION: gateway.region,
        AWS_ACCESS_KEY_ID: gateway.accessKeyId,
        AWS_SECRET_ACCESS_KEY: gateway.secretAccessKey,
      };
      const restore = await npmScript('restore', [folder], restoredEnv);
      expect(restore.code, restore.stderr).toBe(0);
      expect(restore.stdout).toMatch(/restored schema \d+ backup: \d+ rows, \d+ files/);
      // Not twice: the target now holds data.
      const again = await npmScript('restore', [folder], restoredEnv);
      expect(again.code).toBe(1);
      expect(again.stderr).toMatch(/holds data/);
      expect((await bucket.list(`recordings/${first}/`)).length).toBeGreaterThan(2);
      bucket.close();

      restoredApi = await startServiceProcess({ dataDir: restoredEnv.TAKELINE_DATA_DIR!, env: restoredEnv });
      const r = client(restoredApi);
      for (const id of [first, second]) expect(await recordingView(r, id), id).toEqual(await recordingView(c, id));
      const listed = (await r.get('/v1/speech/transcriptions?limit=100')) as { data: Array<{ id: string }> };
      expect(listed.data.map((s) => s.id).sort()).toEqual(rowInBackup ? [first, second, inFlight.id].sort() : [first, second].sort());
      if (rowInBackup) expect(sha(await r.bytes(`/v1/speech/transcriptions/${inFlight.id}/audio`))).toBe(sha(upload));
      else expect(await bucketKeys(gateway, inFlight.id!)).toEqual([]);
      // Keys: the same rows, and a restored key works on the restored team with its limits; the revoked one does not.
      expect(await keyRows(restoredEnv.TAKELINE_DATABASE_URL!)).toEqual(await keyRows(env.TAKELINE_DATABASE_URL!));
      const ann = client(restoredApi, annKey);
      expect(((await ann.get('/v1/speech/projects')) as { data: Array<{ key: string }> }).data.map((p) => p.key)).toEqual(['show']);
      expect(await ann.status(`/v1/speech/transcriptions/${second}`)).toBe(404);
      expect(await client(restoredApi, revoked.stdout.trim()).status('/v1/speech/projects')).toBe(401);
    } finally {
      await restoredApi?.stop();
      await worker?.stop().catch(() => {});
      await api?.stop();
      await gateway?.stop();
    }
  });
});

async function bucketKeys(gateway: ThrowawayS3, sessionId: string): Promise<string[]> {
  const store = new (await import('../../src/service/storage/blobs/s3-blob-store')).S3BlobStore({
    bucket: 'restored',
    prefix: 'team/',
    endpoint: gateway.endpoint,
    region: gateway.region,
    credentials: { accessKeyId: gateway.accessKeyId, secretAccessKey: gateway.secretAccessKey },
  });
  try {
    return await store.list(`recordings/${sessionId}/`);
  } finally {
    store.close();
  }
}

describe.skipIf(!pocketSphinxAvailable().ok || !resolveSphinxtrain())('moving a desktop onto a team', () => {
  it('restores a desktop data folder (corrected transcript, markers, a revoiced dub, speaker adaptation) into a team: the team shows the same', { timeout: 1_200_000 }, async () => {
    const dataDir = tempDir('takeline-desktop-');
    const work = tempDir('takeline-desktop-work-');
    let desktop: ServiceProcess | null = null;
    let team: ServiceProcess | null = null;
    try {
      desktop = await startServiceProcess({ dataDir, env: { TAKELINE_ADAPTATION_MIN_SECONDS: '3' } });
      const d = client(desktop);
      const id = await createSession(desktop, 'voices');
      expect((await settled(desktop, id)).status).toBe('complete');
      const project = () => d.get('/v1/speech/projects/voices') as Promise<{ id: string; speakers: Array<{ id: string; adaptation: { recordings: number } | null }> }>;
      const adapted = await until(project, (p) => (p.speakers[0]?.adaptation?.recordings ?? 0) >= 1, 300_000);
      const segment = ((await d.get(`/v1/speech/transcriptions/${id}`)) as { transcript: { segments: Array<{ id: number }> } }).transcript.segments[0]!.id;
      await d.send('PATCH', `/v1/speech/transcriptions/${id}/transcript/segments/${segment}`, { text: 'A printed line, corrected on the desktop.' });
      await d.send('POST', `/v1/speech/transcriptions/${id}/markers`, { time: 2.5, name: 'breath' });
      expect((await dubWithRevoice(desktop, id, work)).revisions).toBe(2);
      // Whatever the corrected transcript queued (a new adaptation estimate) done, so both sides show the same.
      await until(() => teamlessJobs(dataDir), (n) => n === 0, 300_000);
      const before = { recording: await recordingView(d, id), project: portable(await project()) };

      // The team: its own database and data folder (its storage); the desktop keeps running meanwhile.
      const env = await teamEnv(pg(), 'from_desktop');
      const restore = await npmScript('restore', ['--from-desktop', dataDir], env);
      expect(restore.code, restore.stderr).toBe(0);
      expect(restore.stderr).toMatch(/is a desktop's data folder: backing it up first/);
      const [state] = await teamQuery<{ state_json: string }>(env.TAKELINE_DATABASE_URL!, 'SELECT state_json FROM speaker_adaptations WHERE speaker_id = $1', [adapted.speakers[0]!.id]);
      expect(JSON.parse(state!.state_json).transform).toMatch(/^adaptation\//);
      expect(fs.existsSync(path.join(env.TAKELINE_DATA_DIR!, JSON.parse(state!.state_json).transform))).toBe(true);

      team = await startServiceProcess({ dataDir: env.TAKELINE_DATA_DIR!, env: { ...env, TAKELINE_MODELS_DIR: modelsDir } });
      const t = client(team);
      const after = { recording: await recordingView(t, id), project: portable(await t.get('/v1/speech/projects/voices')) };
      expect(after).toEqual(before);
    } finally {
      await team?.stop();
      await desktop?.stop();
    }
  });
});

/** The desktop's queued and running jobs, read from its database file. */
async function teamlessJobs(dataDir: string): Promise<number> {
  const Database = (await import('better-sqlite3')).default;
  const db = new Database(path.join(dataDir, 'takeline.db'), { readonly: true });
  try {
    return (db.prepare("SELECT count(*) AS n FROM jobs WHERE status IN ('queued', 'running')").get() as { n: number }).n;
  } finally {
    db.close();
  }
}
