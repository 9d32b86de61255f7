import os from 'node:os';
import autocannon from 'autocannon';
import { readProcStat } from '../../src/service/proc-stat';

/**
 * Closed-loop read load with autocannon: `connections` clients cycling through `paths` for `seconds`.
 * `plain`: every request is an unconditional GET (the whole document each time). `poll`: the clients behave
 * like pollers that keep what they read, sending the newest `ETag` back as `If-None-Match`, so an unchanged
 * document costs a 304 with no body (routes without an ETag, the lists, answer 200 as before). Both are reported: the plain figure is the honest worst case.
 */
export type ReadMode = 'plain' | 'poll';

export interface ReadLoad {
  mode: ReadMode;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  requests: number;
  /** Connection errors and timeouts, plus 4xx/5xx answers. */
  errors: number;
  /** Answers that were 304 Not Modified (poll mode). */
  not_modified: number;
  mb_read: number;
}

export async function readLoad(options: {
  url: string;
  paths: string[];
  headers: Record<string, string>;
  seconds: number;
  connections?: number;
  mode: ReadMode;
}): Promise<ReadLoad> {
  const poll = options.mode === 'poll';
  // autocannon clears each connection's context whenever it wraps around its list of requests, so the
  // ETags live here, shared by the clients: each sends the newest ETag any client read for that path, as
  // a poller holding the current copy would.
  const etags = new Map<string, string>();
  const requests = options.paths.map((path) => ({
    method: 'GET' as const,
    path,
    ...(poll
      ? {
          setupRequest: (req: { headers?: Record<string, string> }) => {
            const etag = etags.get(path);
            return { ...req, headers: { ...options.headers, ...(etag ? { 'If-None-Match': etag } : {}) } };
          },
          onResponse: (status: number, _body: string, _context: unknown, headers: Record<string, string>) => {
            const etag = headers.etag ?? headers.ETag;
            if (status === 200 && etag) etags.set(path, etag);
          },
        }
      : {}),
  }));
  const result = await autocannon({
    url: options.url,
    connections: options.connections ?? 50,
    duration: options.seconds,
    headers: options.headers,
    requests: requests as never,
  });
  const stats = (result as unknown as { statusCodeStats?: Record<string, { count: number }> }).statusCodeStats ?? {};
  const count = (test: (code: number) => boolean) => Object.entries(stats).reduce((n, [code, s]) => n + (test(Number(code)) ? s.count : 0), 0);
  return {
    mode: options.mode,
    p50: result.latency.p50,
    p90: result.latency.p90,
    p99: result.latency.p99,
    max: result.latency.max,
    requests: result.requests.total,
    errors: result.errors + result.timeouts + count((c) => c >= 400),
    not_modified: count((c) => c === 304),
    mb_read: +(result.throughput.total / 1e6).toFixed(1),
  };
}

/** What a reader of the figures needs to know about the host they were measured on. */
export function hostNote(): string {
  const [one, five] = os.loadavg();
  return `${os.availableParallelism()} cores, load average ${one!.toFixed(1)} (1 min) / ${five!.toFixed(1)} (5 min), this process at nice ${os.getPriority()}`;
}

/** CPU seconds (user + system) of one process's main thread, the service's event loop (Linux /proc). */
export function threadCpuSeconds(pid: number): number {
  return readProcStat(pid, pid).cpuSeconds;
}
