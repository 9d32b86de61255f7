import type { Response } from 'express';
import { HttpError, toHttpError } from './errors';
import { isFolderUnreachable, StorageUnavailableError } from '../storage/blobs/storage-unavailable';

/**
 * What a failed `res.sendFile` means for the client. `send` reports a Range beyond the end as 416 (with
 * `Content-Range: bytes *\/size`), a stale `If-Match`/`If-Unmodified-Since` as 412, a missing file as 404;
 * a folder that cannot be read (a lost mount, permissions) is the storage's outage (503); anything else (a
 * read error) is the service's fault. A client that went away needs no answer (null).
 */
export function sendFileFailure(error: unknown, missing: string): HttpError | null {
  const err = error as { status?: unknown; code?: unknown; headers?: Record<string, unknown> } | null;
  if (err?.code === 'ECONNABORTED' || err?.code === 'ECONNRESET' || err?.code === 'EPIPE') return null;
  if (isFolderUnreachable(err)) {
    // The outage's own error goes along as the cause, for the log.
    const outage = new StorageUnavailableError('the storage folder', error);
    return Object.assign(toHttpError(outage), { cause: outage });
  }
  const status = typeof err?.status === 'number' ? err.status : err?.code === 'ENOENT' ? 404 : 500;
  if (status === 416) {
    const range = err?.headers?.['Content-Range'];
    return new HttpError(416, 'The requested range is beyond the end of the file.', {
      code: 'range_not_satisfiable',
      headers: typeof range === 'string' ? { 'Content-Range': range } : {},
    });
  }
  if (status === 412) return new HttpError(412, 'The file changed since the version you asked for.', { code: 'precondition_failed' });
  if (status === 404) return new HttpError(404, missing, { code: 'file_missing' });
  return new HttpError(500, 'The file could not be read.', { code: 'read_error' });
}

/**
 * The file's own headers were set before sending; an error answer is JSON, so they must go (a JSON body
 * labelled `audio/flac` is what a player would try to decode).
 */
export function clearFileHeaders(res: Response): void {
  for (const name of ['Content-Type', 'Content-Disposition', 'Cache-Control', 'Accept-Ranges', 'Last-Modified', 'ETag', 'Content-Length']) {
    res.removeHeader(name);
  }
}
