import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { multipartBody, rawRequest, startServiceProcess, type ServiceProcess } from '../helpers/service';
import { audioDir } from '../helpers/paths';
import { childProcesses } from '../helpers/proc-stat';
import { backgroundNiceness, DEFAULT_BACKGROUND_NICE, deferredNiceness } from '../../src/service/jobs/background-priority';

/** The nice value of each thread of `pid`, as another program sees it: field 19 of /proc/<pid>/task/<tid>/stat. */
function threadNiceness(pid: number): number[] {
  return fs.readdirSync(`/proc/${pid}/task`).flatMap((tid) => {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      return [Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])];
    } catch {
      return []; // a thread that ended meanwhile
    }
  });
}

/** The service's live child processes whose command line holds `what`. */
function children(parent: number, what: string): number[] {
  return childProcesses(parent)
    .filter((c) => {
      try {
        return fs.readFileSync(`/proc/${c.pid}/cmdline`, 'utf8').includes(what);
      } catch {
        return false; // ended meanwhile
      }
    })
    .map((c) => c.pid);
}

/** What a kept call leaves (its analysis) runs below what the next call waits for, and never ahead of it. */
describe.runIf(process.platform === 'linux')('deferred work beside a request', { timeout: 900_000 }, () => {
  let svc: ServiceProcess;
  beforeAll(async () => {
    svc = await startServiceProcess();
  });
  afterAll(async () => {
    if (svc) expect(await svc.stop()).toBe(0);
  });

  const post = (file: string, fields: Array<{ name: string; value: string }> = []) => {
    const { body, contentType } = multipartBody([
      { name: 'model', value: 'whisper-1' },
      ...fields,
      { name: 'file', file: fs.readFileSync(file), filename: path.basename(file) },
    ]);
    return rawRequest(`${svc.url}/v1/audio/transcriptions`, { method: 'POST', headers: { Authorization: `Bearer ${svc.key}`, 'Content-Type': contentType }, body });
  };

  it('runs a kept call\'s analysis at the deferred niceness on every thread, and answers the next call while it runs', async () => {
    const kept = await post(path.join(audioDir, 'diarization', 'sample.flac'));
    expect(kept.status).toBe(200);
    // The analysis starts once the in-process worker takes it (after the speaker adaptation when that came first).
    let analysis: number[] = [];
    for (const deadline = Date.now() + 600_000; analysis.length === 0 && Date.now() < deadline; ) {
      analysis = children(svc.child.pid!, 'analysis-process');
      if (analysis.length === 0) await new Promise((r) => setTimeout(r, 50));
    }
    expect(analysis).toHaveLength(1);
    const pid = analysis[0]!;
    const service = os.getPriority(svc.child.pid!);
    const deferred = deferredNiceness(service, DEFAULT_BACKGROUND_NICE);
    // Its main thread as /proc/<pid>/stat has it, and every other thread: onnxruntime computes on libuv's pool threads.
    const main = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    expect(Number(main.slice(main.lastIndexOf(')') + 2).split(' ')[16])).toBe(deferred);
    // Caught just after its start it may have its main thread only: wait for the threads Node starts.
    let threads = threadNiceness(pid);
    for (const deadline = Date.now() + 60_000; threads.length < 5 && Date.now() < deadline; threads = threadNiceness(pid)) await new Promise((r) => setTimeout(r, 50));
    expect(threads.length).toBeGreaterThanOrEqual(5);
    expect(new Set(threads)).toEqual(new Set([deferred]));
    expect(deferred).toBeGreaterThan(backgroundNiceness(service, DEFAULT_BACKGROUND_NICE));

    // A call made now is answered in its request, not queued behind the analysis: it comes back while the
    // analysis process still runs (nothing kept, so it leaves no further work).
    const next = await post(path.join(audioDir, 'asr', 'amateur_LJ001-0001.flac'), [{ name: 'store', value: 'false' }]);
    expect(next.status).toBe(200);
    expect((next.json() as { text: string }).text.length).toBeGreaterThan(0);
    expect(children(svc.child.pid!, 'analysis-process')).toEqual([pid]);
  });
});
