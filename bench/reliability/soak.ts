import fs from 'node:fs';
import path from 'node:path';
import { multipartBody, rawRequest, startServiceProcess } from '../../test/helpers/service';
import { inspectDatabase, waitFor } from '../../test/helpers/crash';
import { tinyWav } from '../../test/helpers/fuzz/run-fuzz';

export interface Sample {
  rssMb: number;
  fds: number;
  /** Pages in use (page_count − freelist_count): the data, whatever the WAL and free pages hold. */
  dbKb: number;
  /** Rows in all tables but the per-request ones (keys, browser sessions, sign-in tokens). */
  dbRows: number;
  /** The data folder without the database files. */
  filesKb: number;
}

export interface SoakReport {
  cycles: number;
  seconds: number;
  baseline: Sample;
  end: Sample;
  failures: string[];
}

function filesKb(dir: string): number {
  let bytes = 0;
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, e.name);
      if (e.isDirectory()) walk(full);
      else if (!/^takeline\.db/.test(e.name)) bytes += fs.statSync(full, { throwIfNoEntry: false })?.size ?? 0;
    }
  };
  walk(dir);
  return Math.round(bytes / 1024);
}

/** The service process's resident memory and open descriptors (Linux /proc), its database and data folder size. */
function sample(pid: number, dataDir: string): Sample {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  const { usedBytes, rows } = inspectDatabase(dataDir, (db) => {
    const pages = (db.pragma('page_count', { simple: true }) as number) - (db.pragma('freelist_count', { simple: true }) as number);
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT IN ('api_keys', 'browser_sessions', 'sign_in_tokens', 'schema_migrations')").all() as Array<{ name: string }>;
    const count = tables.reduce((n, { name }) => n + (db.prepare(`SELECT count(*) AS n FROM "${name}"`).get() as { n: number }).n, 0);
    return { usedBytes: pages * (db.pragma('page_size', { simple: true }) as number), rows: count };
  });
  return { rssMb: Math.round(rssKb / 1024), fds: fs.readdirSync(`/proc/${pid}/fd`).length, dbKb: Math.round(usedBytes / 1024), dbRows: rows, filesKb: filesKb(dataDir) };
}

/**
 * upload → transcribe → export → delete, `cycles` times; the baseline is taken after `warmup` cycles (engines
 * loaded, caches filled), the end after the last, and the drift between them is the figure.
 */
export async function soakBench(options: { cycles: number; warmup: number; log: (line: string) => void }): Promise<SoakReport> {
  const failures: string[] = [];
  const svc = await startServiceProcess();
  const pid = svc.child.pid!;
  const auth = { Authorization: `Bearer ${svc.key}` };
  const file = tinyWav(3);
  let baseline: Sample | null = null;
  const started = Date.now();
  try {
    for (let i = 0; i < options.warmup + options.cycles; i++) {
      if (i === options.warmup) baseline = sample(pid, svc.dataDir);
      const { body, contentType } = multipartBody([{ name: 'project_key', value: 'soak' }, { name: 'file', file, filename: `soak-${i}.wav` }]);
      const created = await rawRequest(`${svc.url}/v1/speech/transcriptions`, { method: 'POST', headers: { ...auth, 'Content-Type': contentType }, body });
      if (created.status !== 201) {
        failures.push(`cycle ${i}: upload ${created.status}`);
        continue;
      }
      const id = created.json().id;
      const done = await waitFor(async () => {
        const s = await (await fetch(`${svc.url}/v1/speech/transcriptions/${id}`, { headers: auth })).json();
        return s.status === 'complete' || s.status === 'failed' ? s : null;
      }, `cycle ${i}`, 120_000, 50);
      if (done.status !== 'complete') failures.push(`cycle ${i}: ${done.status}`);
      const srt = await fetch(`${svc.url}/v1/speech/transcriptions/${id}/export?format=srt`, { headers: auth });
      if (srt.status !== 200) failures.push(`cycle ${i}: export ${srt.status}`);
      await srt.arrayBuffer();
      const deleted = await fetch(`${svc.url}/v1/speech/transcriptions/${id}`, { method: 'DELETE', headers: auth });
      if (deleted.status !== 204) failures.push(`cycle ${i}: delete ${deleted.status}`);
      if ((i + 1) % 50 === 0) options.log(`  soak: ${i + 1} cycles, ${JSON.stringify(sample(pid, svc.dataDir))}`);
    }
    // Let the last deletion's work settle before the final sample.
    await new Promise((r) => setTimeout(r, 1000));
    const end = sample(pid, svc.dataDir);
    return { cycles: options.cycles, seconds: (Date.now() - started) / 1000, baseline: baseline ?? end, end, failures };
  } finally {
    await svc.stop();
  }
}
