import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { processEnvironment } from './config';

/**
 * Starts a worker thread on one of the service's own modules, named relative to the caller
 * (`startModuleWorker('./diarize-thread', import.meta.url)`). Under tsx the sources are .ts; in the
 * Electron bundle they are .js beside the caller. tsx's loader is not inherited by worker threads on
 * Node 20, so a source-run worker registers it first.
 */
export function startModuleWorker(relative: string, callerUrl: string): Worker {
  const fromSource = callerUrl.endsWith('.ts');
  const url = new URL(`${relative}${fromSource ? '.ts' : '.js'}`, callerUrl);
  if (!fromSource) return new Worker(url);
  const bootstrap = `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(url.href)}); });`;
  return new Worker(bootstrap, { eval: true });
}

/**
 * Forks a Node process running one of the service's own modules, with an IPC channel that carries typed
 * arrays (advanced serialization). From source it runs under tsx like the service itself. `env` is added to
 * this process's environment for the child (read at its start, e.g. glibc's MALLOC_ARENA_MAX).
 */
export function forkModule(relative: string, callerUrl: string, execArgv: string[] = [], env: Record<string, string> = {}): ChildProcess {
  const fromSource = callerUrl.endsWith('.ts');
  const file = fileURLToPath(new URL(`${relative}${fromSource ? '.ts' : '.js'}`, callerUrl));
  const inherited = process.execArgv.filter((a) => !a.startsWith('--inspect'));
  const tsx = fromSource && !inherited.some((a) => a.includes('tsx')) ? ['--import', 'tsx'] : [];
  return fork(file, [], { execArgv: [...inherited, ...tsx, ...execArgv], serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'], env: { ...processEnvironment(), ...env } });
}
