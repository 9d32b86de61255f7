import { ServiceError } from '../../errors';

/** How long a client is told to wait before trying again when the storage does not answer. */
export const STORAGE_RETRY_AFTER_SECONDS = 30;

export const STORAGE_UNAVAILABLE_MESSAGE = 'The storage is unavailable; nothing was changed. Try again shortly.';

/**
 * The blob store did not answer (the S3 gateway is down or overloaded, the shared folder's volume is gone or
 * unreadable): an outage, not a fault of the request or of the service. Shown as 503 with Retry-After; its
 * message names no storage (a client need not know where files live), `storage` and `cause` are for the log.
 */
export class StorageUnavailableError extends ServiceError {
  constructor(
    readonly storage: string,
    override readonly cause: unknown,
  ) {
    super('unavailable', STORAGE_UNAVAILABLE_MESSAGE, { code: 'storage_unavailable', retryAfterSeconds: STORAGE_RETRY_AFTER_SECONDS });
  }

  /** For the log: which storage, and what the driver saw. */
  get reason(): string {
    return `${this.storage} is unavailable: ${describeCause(this.cause)}`;
  }
}

/** Network failures: the storage's host cannot be reached or does not answer. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'ENETDOWN',
  'EAI_AGAIN',
  'ENOTFOUND',
  'EPIPE',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_SOCKET',
]);

/** What S3 (and its SDK) call a throttle or a server that is not there now. */
const S3_UNAVAILABLE_NAMES = new Set(['SlowDown', 'ServiceUnavailable', 'InternalError', 'RequestTimeout', 'TimeoutError']);

/**
 * A folder whose volume went away or cannot be read (a lost NFS mount, permissions taken away, mounted read-only).
 * EIO is not among them: a failing disk is a fault to look into, not an outage to wait out.
 */
const FOLDER_CODES = new Set(['EACCES', 'EPERM', 'ENOTCONN', 'ESTALE', 'EHOSTDOWN', 'ETIMEDOUT', 'ENXIO', 'EROFS']);

/** True when an S3 client's error means the gateway is unreachable or unavailable, not that the request was wrong. */
export function isS3Unreachable(error: unknown): boolean {
  return causes(error).some((e) => {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
    const name = (e as { name?: unknown; Code?: unknown }).name ?? (e as { Code?: unknown }).Code;
    if (typeof name === 'string' && S3_UNAVAILABLE_NAMES.has(name)) return true;
    const status = (e as { $metadata?: { httpStatusCode?: unknown } }).$metadata?.httpStatusCode;
    return typeof status === 'number' && status >= 500;
  });
}

/** True when a file system error means the folder store's volume is unreachable or unreadable. */
export function isFolderUnreachable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && FOLDER_CODES.has(code);
}

/** The error, its `cause` chain and an AggregateError's errors (Node's connect tries each address of a name). */
function causes(error: unknown, depth = 0): unknown[] {
  if (error === null || typeof error !== 'object' || depth > 4) return [];
  const found: unknown[] = [error];
  const inner = (error as { cause?: unknown }).cause;
  if (inner !== undefined) found.push(...causes(inner, depth + 1));
  const errors = (error as { errors?: unknown }).errors;
  if (Array.isArray(errors)) for (const e of errors) found.push(...causes(e, depth + 1));
  return found;
}

function describeCause(cause: unknown): string {
  if (cause instanceof AggregateError && cause.errors.length > 0) return cause.errors.map((e) => describeCause(e)).join('; ');
  if (cause instanceof Error) {
    const code = (cause as NodeJS.ErrnoException).code;
    const status = (cause as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
    return [cause.message || cause.name, code && !cause.message.includes(code) ? `(${code})` : '', status ? `(HTTP ${status})` : ''].filter(Boolean).join(' ');
  }
  return String(cause);
}

/**
 * Runs a store operation, turning the failures `unreachable` recognises into StorageUnavailableError (others
 * pass as they are: a missing object, a refused key, a full disk).
 */
export async function guardStorage<T>(storage: string, unreachable: (error: unknown) => boolean, operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (error instanceof StorageUnavailableError || !unreachable(error)) throw error;
    throw new StorageUnavailableError(storage, error);
  }
}

/** The storage outage behind an error a request ended with (itself, or the cause of the HTTP error it became), if any. */
export function storageOutageOf(error: unknown): StorageUnavailableError | null {
  if (error instanceof StorageUnavailableError) return error;
  const cause = (error as { cause?: unknown } | null)?.cause;
  return cause instanceof StorageUnavailableError ? cause : null;
}
