import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnalysisDocument, AnalysisRunList, type AnalysisSegment } from '../../src/shared/schemas/analysis';
import { compareOutside, createSession, download, dubMaster, referenceLines, sessionSettled, uploadDub, wavBytes } from '../helpers/dubs';
import { audioDir } from '../helpers/paths';
import { startPostgres, type ThrowawayPostgres } from '../helpers/postgres';
import { multipartBody, rawRequest, startServiceProcess, type ServiceProcess } from '../helpers/service';
import { sessionJobsDone, startWorker, teamEnv, teamQuery, workerRunning, type Worker } from '../helpers/team';
import { tempDir } from '../helpers/temp';
import { joinClips } from '../helpers/two-readers';

/**
 * A team as the issue describes it: two API nodes on their own ports over one PostgreSQL, three workers. What
 * one node accepts the other serves the same (documents, ETags, exports); a worker killed with kill -9 in the
 * middle of an analysis or a revoice hands the job to another, which finishes it once from its checkpoints.
 */
let pg: ThrowawayPostgres;
let env: Record<string, string>;
let a: ServiceProcess;
let b: ServiceProcess;
const workers: Worker[] = [];

const auth = () => ({ Authorization: `Bearer ${a.key}` });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const jobOf = async (kind: string, sessionId: string) =>
  (await teamQuery<{ id: string; status: string; attempts: number }>(env.TAKELINE_DATABASE_URL!, 'SELECT id, status, attempts FROM jobs WHERE kind = $1 AND session_id = $2 ORDER BY seq', [kind, sessionId]));

beforeAll(async () => {
  pg = await startPostgres();
  env = await teamEnv(pg, 'team_failover');
  a = await startServiceProcess({ dataDir: env.TAKELINE_DATA_DIR, env });
  b = await startServiceProcess({ dataDir: env.TAKELINE_DATA_DIR, env });
  for (let i = 0; i < 3; i++) workers.push(await startWorker(env));
}, 180_000);
afterAll(async () => {
  for (const w of workers) await w.stop().catch(() => {});
  await a?.stop();
  await b?.stop();
  await pg?.stop();
});

describe('team server: two API nodes and three workers', { timeout: 600_000 }, () => {
  it('serves through one API node what was uploaded through the other: the same document, ETag and export', async () => {
    expect(a.port).not.toBe(b.port);
    const { body, contentType } = multipartBody([
      { name: 'project_key', value: 'two-nodes' },
      { name: 'file', file: fs.readFileSync(path.join(audioDir, 'asr', 'ljspeech_LJ001-0001.flac')), filename: 'lj.flac' },
    ]);
    const created = await rawRequest(`${a.url}/v1/speech/transcriptions`, { method: 'POST', headers: { ...auth(), 'Content-Type': contentType }, body });
    expect(created.status).toBe(201);
    const id = created.json().id as string;
    await sessionSettled(b, id);
    // The jobs a transcription queues (speaker profiles, adaptation, analysis) write the recording's rows, and each
    // write is a new ETag: both nodes are read once they are done, so they see the same state.
    await sessionJobsDone(env.TAKELINE_DATABASE_URL!, id, 300_000);
    const fromA = await fetch(`${a.url}/v1/speech/transcriptions/${id}`, { headers: auth() });
    const fromB = await fetch(`${b.url}/v1/speech/transcriptions/${id}`, { headers: auth() });
    const [docA, docB] = [await fromA.json(), await fromB.json()];
    expect(docB.status).toBe('complete');
    expect(docB).toEqual(docA);
    expect(fromB.headers.get('etag')).toBeTruthy();
    expect(fromB.headers.get('etag')).toBe(fromA.headers.get('etag'));
    const unchanged = await fetch(`${b.url}/v1/speech/transcriptions/${id}`, { headers: { ...auth(), 'If-None-Match': fromA.headers.get('etag')! } });
    expect(unchanged.status).toBe(304);
    const srt = async (svc: ServiceProcess) => {
      const res = await fetch(`${svc.url}/v1/speech/transcriptions/${id}/export?format=srt`, { headers: auth() });
      expect(res.status).toBe(200);
      return res.text();
    };
    const exported = await srt(b);
    expect(exported).toMatch(/^1\r?\n00:00:0\d,\d{3} --> /);
    expect(exported).toBe(await srt(a));
    // The project is one project, whichever node lists it.
    const projects = async (svc: ServiceProcess) => ((await (await fetch(`${svc.url}/v1/speech/projects`, { headers: auth() })).json()) as { data: Array<{ key: string }> }).data.map((p) => p.key);
    expect(await projects(b)).toContain('two-nodes');
    expect(await projects(b)).toEqual(await projects(a));
  });

  it('hands an analysis whose worker was killed mid-run to another worker, which finishes the same run from its checkpoints', async () => {
    const file = joinClips(tempDir('takeline-team-analysis-'), 'readings.flac', [
      'ljspeech_LJ001-0001', 'amateur_LJ001-0010', 'ljspeech_LJ001-0003', 'amateur_LJ001-0035', 'ljspeech_LJ001-0004', 'amateur_LJ001-0049', 'ljspeech_LJ001-0006', 'amateur_LJ001-0058',
    ]);
    const { body, contentType } = multipartBody([
      { name: 'project_key', value: 'team-analysis' },
      { name: 'file', file: fs.readFileSync(file), filename: 'readings.flac' },
    ]);
    const id = (await rawRequest(`${a.url}/v1/speech/transcriptions`, { method: 'POST', headers: { ...auth(), 'Content-Type': contentType }, body })).json().id as string;
    const analysis = async (svc: ServiceProcess) => AnalysisDocument.parse(await (await fetch(`${svc.url}/v1/speech/transcriptions/${id}/intelligence`, { headers: auth() })).json());
    let before: ReturnType<typeof AnalysisDocument.parse> | null = null;
    for (let i = 0; i < 6000 && !before; i++) {
      const d = await analysis(a);
      if (d.intelligence.status === 'running' && d.intelligence.segments.length > 0 && d.intelligence.segments.length < d.intelligence.coverage.segments) before = d;
      else if (d.intelligence.status === 'complete') throw new Error('the analysis finished before it could be killed');
      else await sleep(50);
    }
    expect(before, 'the analysis got under way').not.toBeNull();
    const [job] = await jobOf('analysis', id);
    const victim = await workerRunning(workers, job!.id, 1, 1000);
    await victim.kill();
    workers.splice(workers.indexOf(victim), 1);
    workers.push(await startWorker(env));

    const survivor = await workerRunning(workers, job!.id, 2, 120_000);
    expect(survivor).not.toBe(victim);
    let after = await analysis(b);
    for (let i = 0; i < 2400 && after.intelligence.status !== 'complete' && after.intelligence.status !== 'failed'; i++) {
      await sleep(250);
      after = await analysis(b);
    }
    expect(after.intelligence.status).toBe('complete');
    expect(after.intelligence.run_id).toBe(before!.intelligence.run_id);
    // The lines measured before the kill are kept as they were (their perception is the run's last stage).
    const measured = (s: AnalysisSegment) => ({ ...s, perception: null, delivery: null, emphasis: [] });
    const byId = new Map(after.intelligence.segments.map((s) => [s.id, s]));
    for (const s of before!.intelligence.segments) expect(measured(byId.get(s.id)!)).toEqual(measured(s));
    expect(after.intelligence.segments.map((s) => s.id)).toEqual([...new Set(after.intelligence.segments.map((s) => s.id))]);
    const runs = AnalysisRunList.parse(await (await fetch(`${b.url}/v1/speech/transcriptions/${id}/intelligence/runs`, { headers: auth() })).json());
    expect(runs.data).toHaveLength(1);
    expect(await jobOf('analysis', id)).toEqual([{ id: job!.id, status: 'complete', attempts: 2 }]);
  });

  it('hands a revoice whose worker was killed mid-render to another, which renders only the lines not kept and changes nothing outside them', async () => {
    const sessionId = await createSession(a, 'team-dubbing');
    await sessionSettled(a, sessionId);
    const lines = referenceLines(60);
    // Through the other node: the dub, its corrections and the revoice.
    const created = await uploadDub(b, sessionId, [
      { name: 'file', file: fs.readFileSync(dubMaster(tempDir('takeline-team-dub-'), 60, { rate: 44100, codec: 'pcm_s16le' })), filename: 'dub.wav' },
      { name: 'lines', value: JSON.stringify(lines) },
    ]);
    expect(created.status).toBe(201);
    const dubId = created.json().id as string;
    const base = (svc: ServiceProcess) => `${svc.url}/v1/speech/transcriptions/${sessionId}/dubs/${dubId}`;
    for (const [i, line] of lines.entries()) {
      const res = await fetch(`${base(b)}/lines/${i + 1}`, { method: 'PATCH', headers: { ...auth(), 'Content-Type': 'application/json' }, body: JSON.stringify({ text: `${line.text.split(',')[0]!.trim()}.` }) });
      expect(res.status).toBe(200);
    }
    const revision1 = await download(((await (await fetch(`${base(a)}/revisions`, { headers: auth() })).json()) as { data: Array<{ audio: { url: string } }> }).data[0]!.audio.url);
    const started = await fetch(`${base(b)}/revoice?wait=0`, { method: 'POST', headers: auth() });
    expect(started.status).toBe(202);
    const location = started.headers.get('location')!;
    const poll = async (svc: ServiceProcess) => (await (await fetch(`${svc.url}${location}`, { headers: auth() })).json()) as { status: string; attempts: number; lines: Array<{ line_id: number; status: string; attempt: number; render: { region: { start_frame: number; end_frame: number } } }>; revision: { number: number; audio: { url: string } } };
    let doc = await poll(a);
    for (let i = 0; i < 4800 && doc.lines.filter((l) => l.status === 'done').length < 2; i++) {
      await sleep(50);
      doc = await poll(a);
    }
    const [job] = await jobOf('dub-revoice', sessionId);
    const victim = await workerRunning(workers, job!.id, 1, 1000);
    await victim.kill();
    workers.splice(workers.indexOf(victim), 1);
    // What the killed worker kept is read after the kill (a line may finish between the poll above and the
    // kill), and before a survivor takes the job: those lines are stored with attempt 1.
    const doneBeforeKill = (await poll(a)).lines.filter((l) => l.status === 'done').map((l) => l.line_id);
    expect(doneBeforeKill.length).toBeGreaterThanOrEqual(2);
    expect(doneBeforeKill.length).toBeLessThan(lines.length);

    const survivor = await workerRunning(workers, job!.id, 2, 120_000);
    expect(survivor).not.toBe(victim);
    for (let i = 0; i < 2400 && (doc.status === 'queued' || doc.status === 'running'); i++) {
      await sleep(250);
      doc = await poll(b);
    }
    expect(doc).toMatchObject({ status: 'complete', revision: { number: 2 }, attempts: 2 });
    for (const line of doc.lines) expect(line.attempt, `line ${line.line_id}`).toBe(doneBeforeKill.includes(line.line_id) ? 1 : 2);
    const after = wavBytes(await download(doc.revision.audio.url));
    expect(compareOutside(wavBytes(revision1), after, doc.lines.map((l) => l.render.region)).outside).toBe(0);
    expect(await jobOf('dub-revoice', sessionId)).toEqual([{ id: job!.id, status: 'complete', attempts: 2 }]);
  });
});
