import fs from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import { hostNote, readLoad, type ReadLoad } from '../lib/read-load';
import { multipartBody, rawRequest, startServiceProcess } from '../../test/helpers/service';
import { sha256, waitFor } from '../../test/helpers/crash';
import { tinyWav } from '../../test/helpers/fuzz/run-fuzz';

export interface LoadReport {
  readers: { connections: number; seconds: number; requests: number; errors: number; non2xx: number; p50: number; p99: number; max: number; during: string; host: string };
  /** The same readers as pollers sending If-None-Match (304 while a document is unchanged), right after. */
  pollers: ReadLoad & { during: string; host: string };
  uploads: { count: number; intact: number; bytes: number; seconds: number };
  failures: string[];
}

/**
 * 50 concurrent readers on the read routes while a long recording is transcribed and then analysed, and
 * `uploads` concurrent uploads whose stored bytes are compared with what was sent.
 */
export async function loadBench(options: { recording: string; seconds: number; uploads: number; log: (line: string) => void }): Promise<LoadReport> {
  const failures: string[] = [];
  const svc = await startServiceProcess();
  const auth = { Authorization: `Bearer ${svc.key}` };
  try {
    const { body, contentType } = multipartBody([{ name: 'project_key', value: 'load' }, { name: 'file', file: fs.readFileSync(options.recording), filename: 'long.flac' }]);
    const id = (await rawRequest(`${svc.url}/v1/speech/transcriptions`, { method: 'POST', headers: { ...auth, 'Content-Type': contentType }, body })).json().id;
    await waitFor(async () => (await (await fetch(`${svc.url}/v1/speech/transcriptions/${id}`, { headers: auth })).json()).status === 'running', 'the transcription to start');
    const routes = [`/v1/speech/transcriptions/${id}`, '/v1/speech/projects', '/v1/speech/transcriptions?project=load', `/v1/speech/transcriptions/${id}/intelligence`];
    const result = await autocannon({
      url: svc.url,
      connections: 50,
      duration: options.seconds,
      headers: auth,
      requests: routes.map((p) => ({ method: 'GET', path: p })),
    });
    const state = await (await fetch(`${svc.url}/v1/speech/transcriptions/${id}`, { headers: auth })).json();
    const readers = {
      connections: 50,
      seconds: options.seconds,
      requests: result.requests.total,
      errors: result.errors + result.timeouts,
      non2xx: result.non2xx,
      p50: result.latency.p50,
      p99: result.latency.p99,
      max: result.latency.max,
      during: `${state.status} ${Math.round(state.progress * 100)}% (${state.stage})`,
      host: hostNote(),
    };
    if (readers.errors || readers.non2xx) failures.push(`readers: ${readers.errors} errors, ${readers.non2xx} non-2xx`);
    const polled = await readLoad({ url: svc.url, paths: routes, headers: auth, seconds: options.seconds, mode: 'poll' });
    const after = await (await fetch(`${svc.url}/v1/speech/transcriptions/${id}`, { headers: auth })).json();
    const pollers = { ...polled, during: `${after.status} ${Math.round(after.progress * 100)}% (${after.stage})`, host: hostNote() };
    if (pollers.errors) failures.push(`pollers: ${pollers.errors} errors`);

    // Concurrent uploads, each a different file, while the transcription goes on.
    const files = Array.from({ length: options.uploads }, (_, i) => tinyWav(2 + (i % 5), 16000 + i));
    const started = Date.now();
    const answers = await Promise.all(
      files.map(async (file, i) => {
        const form = multipartBody([{ name: 'project_key', value: 'load-uploads' }, { name: 'file', file, filename: `u${i}.wav` }]);
        return rawRequest(`${svc.url}/v1/speech/transcriptions`, { method: 'POST', headers: { ...auth, 'Content-Type': form.contentType }, body: form.body });
      }),
    );
    const seconds = (Date.now() - started) / 1000;
    let intact = 0;
    let bytes = 0;
    answers.forEach((res, i) => {
      if (res.status !== 201) return failures.push(`upload ${i}: ${res.status}`);
      const stored = path.join(svc.dataDir, 'recordings', res.json().id, 'original.wav');
      if (fs.existsSync(stored) && sha256(stored) === sha256(files[i]!)) {
        intact++;
        bytes += files[i]!.length;
      } else failures.push(`upload ${i}: stored bytes differ`);
    });
    return { readers, pollers, uploads: { count: files.length, intact, bytes, seconds }, failures };
  } finally {
    await svc.stop();
  }
}
