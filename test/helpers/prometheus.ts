import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { freePort } from './free-port';
import { tempDir } from './temp';

/** A throwaway Prometheus (Debian's `prometheus`) on loopback, with its own config and data folder. */
export interface ThrowawayPrometheus {
  url: string;
  /** An instant PromQL query through the HTTP API: the result vector's samples. */
  query(promql: string): Promise<Array<{ metric: Record<string, string>; value: number }>>;
  output(): string;
  stop(): Promise<void>;
}

export interface ScrapeTarget {
  job: string;
  address: string;
  /** Sent as `Authorization: Bearer …`. */
  token?: string;
}

export const prometheusAvailable = (() => {
  try {
    fs.accessSync('/usr/bin/prometheus', fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
})();

/** Starts Prometheus scraping `targets` every `intervalSeconds`; resolves once it is ready. */
export async function startPrometheus(targets: readonly ScrapeTarget[], intervalSeconds = 1): Promise<ThrowawayPrometheus> {
  const dir = tempDir('takeline-prometheus-');
  const port = await freePort();
  const jobs = targets.map((t) => {
    const auth = t.token ? `\n    authorization:\n      credentials_file: ${path.join(dir, `${t.job}.token`)}` : '';
    if (t.token) fs.writeFileSync(path.join(dir, `${t.job}.token`), t.token, { mode: 0o600 });
    return `  - job_name: ${t.job}\n    static_configs:\n      - targets: ['${t.address}']${auth}`;
  });
  const config = path.join(dir, 'prometheus.yml');
  fs.writeFileSync(config, `global:\n  scrape_interval: ${intervalSeconds}s\n  scrape_timeout: ${intervalSeconds}s\nscrape_configs:\n${jobs.join('\n')}\n`);
  const child: ChildProcess = spawn(
    '/usr/bin/prometheus',
    [`--config.file=${config}`, `--storage.tsdb.path=${path.join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  for (const deadline = Date.now() + 60_000; ; ) {
    if (child.exitCode !== null) throw new Error(`prometheus exited:\n${out}`);
    const ready = await fetch(`${url}/-/ready`).then((r) => r.ok, () => false);
    if (ready) break;
    if (Date.now() > deadline) throw new Error(`prometheus did not start:\n${out}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    output: () => out,
    query: async (promql) => {
      const res = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(promql)}`);
      const body = (await res.json()) as { status: string; error?: string; data: { resultType: string; result: Array<{ metric: Record<string, string>; value: [number, string] }> } };
      if (body.status !== 'success') throw new Error(`PromQL ${promql}: ${body.error}`);
      return body.data.result.map((r) => ({ metric: r.metric, value: Number(r.value[1]) }));
    },
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
