import http from 'node:http';
import fc from 'fast-check';
import { contractRequests, multipart, type FuzzFixtures, type FuzzRequest, type OpenApiDoc, type Operation } from './requests';
import { problemsOf, type Answer } from './checks';
import { DataSnapshot } from './data-snapshot';
import { encodeWav } from '../../../src/service/media/wav';
import { tone } from '../signals';

export interface FuzzFailure {
  request: { operation: string; method: string; path: string; headers: Record<string, string>; notes: string[]; body?: string };
  status: number | null;
  problems: string[];
  answer: string;
}

export interface FuzzReport {
  tried: number;
  /** Refused requests whose data-folder fingerprint was compared before and after. */
  unchangedChecked: number;
  byStatus: Record<string, number>;
  failures: FuzzFailure[];
}

/** Sends one raw request; answers null on a connection error (the service cut it off). */
export function send(baseUrl: string, req: Pick<FuzzRequest, 'method' | 'path' | 'headers' | 'body'>, timeoutMs = 20_000): Promise<Answer | { error: string }> {
  return new Promise((resolve) => {
    const target = new URL(baseUrl);
    const headers: Record<string, string | number> = { ...req.headers };
    if (req.body) headers['Content-Length'] = req.body.length;
    const request = http.request({ host: target.hostname, port: target.port, path: req.path, method: req.method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', (e) => resolve({ error: `response: ${e.message}` }));
    });
    request.setTimeout(timeoutMs, () => {
      request.destroy();
      resolve({ error: `no answer within ${timeoutMs} ms` });
    });
    request.on('error', (e) => resolve({ error: e.message }));
    if (req.body) request.write(req.body);
    request.end();
  });
}

function describeRequest(req: FuzzRequest): FuzzFailure['request'] {
  const body = req.body ? (req.body.length > 400 ? `${req.body.subarray(0, 400).toString('latin1')}… (${req.body.length} bytes)` : req.body.toString('latin1')) : undefined;
  return { operation: req.operation, method: req.method, path: req.path.length > 300 ? `${req.path.slice(0, 300)}…` : req.path, headers: req.headers, notes: req.notes, body };
}

export interface FuzzOptions {
  url: string;
  dataDir: string;
  /** A team server's PostgreSQL, where its rows are (else the data folder's SQLite file). */
  databaseUrl?: string;
  doc: OpenApiDoc;
  fixtures: FuzzFixtures;
  seed: number;
  runs: number;
  /** Operations left out (e.g. ones that would start long work). */
  skip?: (op: Operation) => boolean;
  /** Called after each request (progress, kill schedules). */
  onAnswer?: (index: number, req: FuzzRequest, status: number | null) => void | Promise<void>;
}

/**
 * Sends `runs` requests generated from the contract with a fixed seed, in order, and checks every answer.
 * Faults are collected rather than thrown, so one run lists them all; a refused request (4xx) sent while
 * no job runs must leave the data folder's fingerprint as it was.
 */
export async function runFuzz(options: FuzzOptions): Promise<FuzzReport> {
  const requests = fc.sample(contractRequests(options.doc, options.fixtures, options.skip), { seed: options.seed, numRuns: options.runs });
  const snapshot = new DataSnapshot(options.dataDir, options.databaseUrl);
  const report: FuzzReport = { tried: 0, unchangedChecked: 0, byStatus: {}, failures: [] };
  try {
    for (const [index, req] of requests.entries()) {
      const before = (await snapshot.idle()) ? await snapshot.fingerprint() : null;
      const answer = await send(options.url, req);
      report.tried++;
      if ('error' in answer) {
        // An over-limit body may be cut off once refused; anything else must get an answer.
        const health = await send(options.url, { method: 'GET', path: '/healthz', headers: {} });
        const tooBig = (req.body?.length ?? 0) > options.fixtures.jsonLimit;
        if (!tooBig || 'error' in health) report.failures.push({ request: describeRequest(req), status: null, problems: [`no answer: ${answer.error}`], answer: '' });
        report.byStatus.cut = (report.byStatus.cut ?? 0) + 1;
        await options.onAnswer?.(index, req, null);
        continue;
      }
      report.byStatus[answer.status] = (report.byStatus[answer.status] ?? 0) + 1;
      const problems = problemsOf(req, answer, [options.fixtures.key, options.fixtures.limitedKey ?? ''], options.fixtures.foreignIds);
      if (answer.status >= 400 && answer.status < 500 && before !== null && (await snapshot.idle())) {
        report.unchangedChecked++;
        const changes = DataSnapshot.diff(before, await snapshot.fingerprint());
        if (changes.length) problems.push(`a refused request changed the data folder: ${changes.slice(0, 6).join('; ')}`);
      }
      if (problems.length) report.failures.push({ request: describeRequest(req), status: answer.status, problems, answer: answer.body.toString('utf8').slice(0, 300) });
      await options.onAnswer?.(index, req, answer.status);
    }
  } finally {
    await snapshot.close();
  }
  return report;
}

/** A one-second 16 kHz WAV of a quiet tone: the smallest recording every route accepts. */
export function tinyWav(seconds = 1, rate = 16000): Buffer {
  return encodeWav(tone(220, seconds, rate, 3000 / 32768), { sampleRate: rate, channels: 1, sampleFormat: 's16' });
}

/**
 * Seeds a service with one project, a transcribed session and a dub with lines, and returns their ids. With
 * `limitedKey` (a key limited to another project, made by the caller) the fuzzer also sends requests with it.
 */
export async function seedFixtures(url: string, key: string, limitedKey?: string): Promise<FuzzFixtures> {
  const auth = { Authorization: `Bearer ${key}` };
  const audio = tinyWav(2);
  const post = async (path: string, parts: Array<{ name: string; value?: string; file?: Buffer; filename?: string }>) => {
    const boundary = 'seedboundary';
    const res = await send(url, { method: 'POST', path, headers: { ...auth, 'Content-Type': `multipart/form-data; boundary=${boundary}` }, body: multipart(parts, boundary) });
    if ('error' in res || res.status >= 300) throw new Error(`seeding ${path} failed: ${'error' in res ? res.error : `${res.status} ${res.body}`}`);
    return JSON.parse(res.body.toString());
  };
  const getJson = async (path: string) => {
    const res = await send(url, { method: 'GET', path, headers: auth });
    if ('error' in res) throw new Error(res.error);
    return JSON.parse(res.body.toString());
  };
  const session = await post('/v1/speech/transcriptions', [{ name: 'project_key', value: 'fuzz' }, { name: 'file', file: audio, filename: 'seed.wav' }]);
  for (let i = 0; i < 600; i++) {
    const s = await getJson(`/v1/speech/transcriptions/${session.id}`);
    if (s.status === 'complete' || s.status === 'failed') break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const dub = await post(`/v1/speech/transcriptions/${session.id}/dubs`, [
    { name: 'file', file: audio, filename: 'dub.wav' },
    { name: 'lines', value: JSON.stringify([{ speaker: 'S1', start: 0.2, end: 0.9, text: 'Hello there.' }, { speaker: 'S1', start: 1.1, end: 1.8, text: 'Goodbye.' }]) },
  ]);
  const lines = await getJson(`/v1/speech/transcriptions/${session.id}/dubs/${dub.id}/lines`);
  const project = await getJson('/v1/speech/projects/fuzz');
  return {
    ids: {
      session_id: [session.id],
      dub_id: [dub.id],
      line_id: (lines.data ?? []).map((l: { id: number | string }) => String(l.id)),
      project: ['fuzz', project.id],
      speaker_id: (project.speakers ?? []).map((s: { id: string }) => s.id),
      number: ['1', '2'],
      revision: ['0', '1'],
      name: ['base.en', 'tiny'],
      model: ['whisper-1', 'pocketsphinx', 'tts-1'],
    },
    audio,
    key,
    limitedKey,
    foreignIds: [session.id, dub.id, project.id],
    jsonLimit: 1024 * 1024,
  };
}
