import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import http from 'node:http';
import { modelsDir, repoRoot } from './paths';
import { until } from './poll';
import { tempDir } from './temp';

export interface ServiceProcess {
  url: string;
  port: number;
  key: string;
  signInUrl: string;
  dataDir: string;
  child: ChildProcess;
  output(): string;
  /** SIGTERM and wait; resolves with the exit code. */
  stop(): Promise<number | null>;
  /** kill -9 and wait. */
  kill(): Promise<void>;
}

/** Starts `npm run serve`'s program for real on a free port with a temporary (or given) data dir. */
export async function startServiceProcess(
  /**
   * `cwd`: the source tree to run (default this repository; bench/memory runs an exported older tree beside it).
   * `startMs`: how long it may take to listen (a bench on a loaded machine waits longer).
   */
  options: { env?: Record<string, string>; dataDir?: string; cwd?: string; startMs?: number } = {},
): Promise<ServiceProcess> {
  const dataDir = options.dataDir ?? tempDir('takeline-test-');
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/service/cli/serve.ts'], {
    cwd: options.cwd ?? repoRoot,
    env: { ...process.env, TAKELINE_PORT: '0', TAKELINE_DATA_DIR: dataDir, TAKELINE_MODELS_DIR: modelsDir, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  let stopping = false;
  let started = false;
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code, signal) => {
      // A service that dies under a test says why (the test then fails on a refused connection).
      if (started && !stopping && code !== 0) console.error(`service on ${dataDir} exited (${signal ?? code}) by itself:\n${out.slice(-4000)}`);
      resolve(code);
    }),
  );
  const url = await new Promise<string>((resolve, reject) => {
    // A loaded machine (a full run beside other work) may take minutes to start a service.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`service did not start:\n${out}`));
    }, options.startMs ?? 180_000);
    const check = () => {
      const match = /takeline listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (match && /auth\/signin\?token=/.test(out)) {
        clearTimeout(timer);
        started = true;
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', check);
    child.on('exit', () => {
      clearTimeout(timer);
      reject(new Error(`service exited:\n${out}`));
    });
  });
  // A team's API node keeps no studio key: its tests use the TAKELINE_API_KEY teamEnv sets.
  const keyFile = path.join(dataDir, 'secrets', 'studio-api-key');
  const key = fs.existsSync(keyFile) ? fs.readFileSync(keyFile, 'utf8').trim() : (options.env?.TAKELINE_API_KEY ?? '');
  const signInUrl = /(http:\/\/\S+\/auth\/signin\?token=\S+)/.exec(out)![1]!;
  return {
    url,
    port: Number(new URL(url).port),
    key,
    signInUrl,
    dataDir,
    child,
    output: () => out,
    stop: async () => {
      stopping = true;
      child.kill('SIGTERM');
      return exited;
    },
    kill: async () => {
      stopping = true;
      child.kill('SIGKILL');
      await exited;
    },
  };
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  json(): any;
  text(): string;
}

/** A raw HTTP request, so tests can set Host and Origin freely and send malformed bodies. */
export function rawRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string | number>; body?: Buffer | string; abortAfterBytes?: number } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const req = http.request(
      { host: target.hostname, port: target.port, path: target.pathname + target.search, method: options.method ?? 'GET', headers: options.headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          resolve({
            status: res.statusCode!,
            headers: res.headers,
            body,
            json: () => JSON.parse(body.toString('utf8')),
            text: () => body.toString('utf8'),
          });
        });
      },
    );
    req.on('error', reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

/** Builds a multipart/form-data body by hand (for duplicated, missing or truncated parts). */
export function multipartBody(parts: Array<{ name: string; value?: string; file?: Buffer; filename?: string; type?: string }>) {
  const boundary = `----takeline${Math.random().toString(16).slice(2)}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"`;
    if (part.file !== undefined) head += `; filename="${part.filename ?? 'file.bin'}"\r\nContent-Type: ${part.type ?? 'application/octet-stream'}`;
    chunks.push(Buffer.from(head + '\r\n\r\n'), part.file ?? Buffer.from(part.value ?? ''), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** Uploads a recording into a project: its session id. */
export async function uploadRecording(svc: ServiceProcess, file: Buffer, filename: string, projectKey: string): Promise<string> {
  const { body, contentType } = multipartBody([
    { name: 'project_key', value: projectKey },
    { name: 'file', file, filename },
  ]);
  const res = await rawRequest(`${svc.url}/v1/speech/transcriptions`, { method: 'POST', headers: { Authorization: `Bearer ${svc.key}`, 'Content-Type': contentType }, body });
  if (res.status !== 201) throw new Error(`upload of ${filename} failed: ${res.status} ${res.text()}`);
  return res.json().id as string;
}

/** Waits (up to `ms`) until a recording's transcription settles: its final status (or the last seen). */
export async function transcriptionSettled(svc: ServiceProcess, id: string, ms?: number): Promise<string> {
  const auth = { Authorization: `Bearer ${svc.key}` };
  const read = async () => ((await (await fetch(`${svc.url}/v1/speech/transcriptions/${id}`, { headers: auth })).json()) as { status: string }).status;
  return until(read, (status) => status === 'complete' || status === 'failed', ms);
}

/** Uploads a recording into a project and waits (up to `ms`) until its transcription settles: its id and final status. */
export async function uploadTranscribed(svc: ServiceProcess, file: Buffer, filename: string, projectKey: string, ms?: number): Promise<{ id: string; status: string }> {
  const id = await uploadRecording(svc, file, filename, projectKey);
  return { id, status: await transcriptionSettled(svc, id, ms) };
}

/**
 * Uploads audio files into a project, one after another (so the project lists them in that order), then waits
 * until each is transcribed. Their session ids; throws when one fails or is not done within `ms`.
 */
export async function uploadAllTranscribed(svc: ServiceProcess, project: string, files: readonly string[], ms = 600_000): Promise<string[]> {
  const ids: string[] = [];
  for (const file of files) ids.push(await uploadRecording(svc, fs.readFileSync(file), path.basename(file), project));
  const deadline = Date.now() + ms;
  for (const id of ids) {
    const status = await transcriptionSettled(svc, id, Math.max(0, deadline - Date.now()));
    if (status !== 'complete') throw new Error(`transcription ${id}: ${status}`);
  }
  return ids;
}
