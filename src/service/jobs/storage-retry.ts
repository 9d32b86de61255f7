import { ConfigError } from '../config';
import { StorageUnavailableError } from '../storage/blobs/storage-unavailable';

/** How long a job keeps trying while the storage is unavailable before it fails (TAKELINE_STORAGE_RETRY_SECONDS). */
export const DEFAULT_STORAGE_RETRY_SECONDS = 300;

/** The first wait after an outage is seen, doubled at each try up to the longest. */
const FIRST_DELAY_MS = 1_000;
const LONGEST_DELAY_MS = 30_000;

/** TAKELINE_STORAGE_RETRY_SECONDS: 0 fails a job at the first outage. */
export function storageRetrySeconds(env: NodeJS.ProcessEnv): number {
  const raw = env.TAKELINE_STORAGE_RETRY_SECONDS?.trim();
  if (!raw) return DEFAULT_STORAGE_RETRY_SECONDS;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value > 86_400) throw new ConfigError(`TAKELINE_STORAGE_RETRY_SECONDS must be a whole number of seconds up to 86400, got "${raw}"`);
  return value;
}

/** The wait before try `retry` (1 for the first retry): 1, 2, 4, 8, 16, 30, 30… seconds. */
export function storageRetryDelayMs(retry: number): number {
  return Math.min(LONGEST_DELAY_MS, FIRST_DELAY_MS * 2 ** Math.max(0, retry - 1));
}

/** What a job says when it gave up on the storage. */
export function storageGaveUpMessage(seconds: number, tries: number): string {
  return `The storage was unavailable for ${seconds} s (${tries} tries); retry the job once it is back.`;
}

export interface StorageRetryHooks {
  /** Bound on the time since the first outage, in ms. */
  boundMs: number;
  signal: AbortSignal;
  /** Told before each wait: the outage and how long the wait is. */
  waiting(outage: StorageUnavailableError, delayMs: number, retry: number): void;
  now?: () => number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/**
 * Runs `attempt` again, with back-off, while it fails because the storage is unavailable, until the next wait
 * would pass the bound: then it fails with a StorageGaveUp error saying so. Other errors, and any error once
 * `signal` is aborted (the job stops or is cancelled), pass as they are. Handlers resume from their checkpoints,
 * as after an interruption, so running one again repeats no finished work.
 */
export async function retryingStorage<T>(attempt: () => Promise<T>, hooks: StorageRetryHooks): Promise<T> {
  const now = hooks.now ?? Date.now;
  const sleep = hooks.sleep ?? abortableSleep;
  let firstOutage: number | null = null;
  for (let retry = 1; ; retry++) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof StorageUnavailableError) || hooks.signal.aborted) throw error;
      firstOutage ??= now();
      const delay = storageRetryDelayMs(retry);
      if (now() - firstOutage + delay > hooks.boundMs) throw new StorageGaveUp(storageGaveUpMessage(Math.round((now() - firstOutage) / 1000), retry), error);
      hooks.waiting(error, delay, retry);
      await sleep(delay, hooks.signal);
    }
  }
}

/** A job that stopped trying to reach the storage; its message is the job's error. */
export class StorageGaveUp extends Error {
  constructor(
    message: string,
    readonly outage: StorageUnavailableError,
  ) {
    super(message);
  }
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
