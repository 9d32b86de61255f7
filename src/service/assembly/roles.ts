import type { ServiceContext } from '../context';
import type { Persistence } from '../persistence';
import type { Core } from './core';
import type { HttpPart, HttpServer } from './http';

/** A process serving HTTP: the desktop's service, or a team's API node. */
export interface RunningService {
  url: string;
  port: number;
  /** The studio's key (what the desktop shell hands the renderer); null on a team's nodes, which keep none. */
  apiKey: string | null;
  /** A fresh one-time sign-in link for the studio in a browser. */
  signInUrl(): Promise<string>;
  context: ServiceContext;
  stop(): Promise<void>;
}

/** A team's worker: it serves nothing, and runs the jobs the queue engine delivers until stopped. */
export interface RunningWorker {
  stop(): Promise<void>;
}

/** What a role built, in the order it is taken down. */
export interface Parts {
  core: Core;
  persistence: Persistence;
  releaseLock: () => void;
  http?: { part: HttpPart; server: HttpServer };
  /** Whatever else the role opened (the job engines), closed after the jobs stop. */
  closers?: Array<() => Promise<void>>;
}

/**
 * Stops a role's process once, however often asked: the server stops taking connections, running jobs stop (and
 * stay queued), the engines and the core close, the last connections end, then the records and the data folder's lock.
 */
export function stopper(parts: Parts): () => Promise<void> {
  let stopped: Promise<void> | null = null;
  return () =>
    (stopped ??= (async () => {
      const closing = parts.http?.server.close();
      await parts.core.jobs.stop();
      await parts.http?.part.close();
      for (const close of parts.closers ?? []) await close();
      await parts.core.close();
      closing?.closeAll();
      await closing?.closed;
      await parts.persistence.close();
      parts.core.files.close();
      parts.releaseLock();
    })());
}

/** The handle of a role serving HTTP. */
export function runningService(parts: Parts & { http: NonNullable<Parts['http']> }, apiKey: string | null): RunningService {
  const { url, port } = parts.http.server;
  const context = parts.http.part.context;
  return {
    url,
    port,
    apiKey,
    context,
    signInUrl: async () => `${url}/auth/signin?token=${await context.signIn.issue()}`,
    stop: stopper(parts),
  };
}
