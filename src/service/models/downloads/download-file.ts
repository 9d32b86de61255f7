import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { once } from 'node:events';
import { fsyncDir } from '../../storage/files';

export type DownloadErrorCode = 'disk_full' | 'not_writable' | 'checksum_mismatch' | 'http_error' | 'network_error' | 'cancelled';

/** Why a download stopped; the message is written for the user. */
export class DownloadError extends Error {
  constructor(
    readonly code: DownloadErrorCode,
    message: string,
    /** The upstream HTTP status, for http_error. */
    readonly status?: number,
  ) {
    super(message);
  }
}

export interface DownloadRequest {
  url: string;
  /** The final file; written only once complete and verified (temp file + rename). */
  dest: string;
  /** Expected SHA-1 (hex) of the whole file; a different file is deleted and refused. */
  sha1: string;
  signal?: AbortSignal;
  /** Called once the server answered and the space is known to suffice, before any byte is written. */
  onStart?(info: { totalBytes: number | null; resumedFrom: number }): void;
  /** Bytes of the file on disk so far (resumed bytes included) and the total when the server says it. */
  onProgress?(receivedBytes: number, totalBytes: number | null): void;
  /** Free bytes where the file goes (tests simulate a full disk); default statfs. */
  freeBytes?(dir: string): number;
  /** No data for this long counts as a broken connection. Default 60 s. */
  stallSeconds?: number;
}

/** The `.part` file a download writes to; it is kept when a download stops so the next one resumes. */
export function partialPath(dest: string): string {
  return `${dest}.part`;
}

function systemFreeBytes(dir: string): number {
  const stats = fs.statfsSync(dir);
  return stats.bavail * stats.bsize;
}

/** Space kept free beyond the file itself (the database and recordings share the disk). */
const FREE_MARGIN_BYTES = 64 * 1024 ** 2;

function formatBytes(n: number): string {
  return n >= 1024 ** 3 ? `${(n / 1024 ** 3).toFixed(2)} GiB` : `${(n / 1024 ** 2).toFixed(1)} MiB`;
}

/** Why `needed` more bytes do not fit in `dir` (with the margin kept free), or null when they do. */
export function spaceShortfall(dir: string, needed: number, freeBytes: (dir: string) => number = systemFreeBytes): string | null {
  const free = freeBytes(dir);
  if (needed + FREE_MARGIN_BYTES <= free) return null;
  return `Not enough free space in ${dir}: the download needs ${formatBytes(needed)} more (plus ${formatBytes(FREE_MARGIN_BYTES)} kept free), ${formatBytes(free)} is free.`;
}

async function hashInto(hash: crypto.Hash, file: string, signal?: AbortSignal): Promise<void> {
  for await (const chunk of fs.createReadStream(file, { signal })) hash.update(chunk as Buffer);
}

function isDiskFull(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT';
}

function isNotWritable(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException)?.code;
  return code === 'EACCES' || code === 'EROFS' || code === 'EPERM';
}

/**
 * Downloads `url` to `dest`: resumes a previous `.part` with an HTTP Range request (a server that answers
 * 200 instead starts it over), checks the free space against the announced size before writing, hashes as
 * it writes, and renames the part into place only when the SHA-1 matches (a mismatch deletes it). A stop
 * for any other reason (cancel, broken connection, full disk) keeps the part for the next attempt.
 */
export async function downloadFile(request: DownloadRequest): Promise<void> {
  const dir = path.dirname(request.dest);
  const part = partialPath(request.dest);
  try {
    fs.mkdirSync(dir, { recursive: true });
    fs.accessSync(dir, fs.constants.W_OK);
  } catch (error) {
    throw new DownloadError('not_writable', `The models folder ${dir} is not writable (${(error as NodeJS.ErrnoException).code ?? 'error'}).`);
  }

  let offset = 0;
  try {
    offset = fs.statSync(part).size;
  } catch {
    offset = 0;
  }
  const controller = new AbortController();
  const forward = () => controller.abort(request.signal?.reason);
  request.signal?.addEventListener('abort', forward, { once: true });
  if (request.signal?.aborted) forward();
  let stall: NodeJS.Timeout | null = null;
  const armStall = () => {
    if (stall) clearTimeout(stall);
    stall = setTimeout(() => controller.abort(new DownloadError('network_error', 'The download stalled (no data for a minute).')), (request.stallSeconds ?? 60) * 1000);
  };
  const cancelled = () =>
    request.signal?.aborted ? new DownloadError('cancelled', 'The download was cancelled.') : controller.signal.reason instanceof DownloadError ? controller.signal.reason : null;

  try {
    armStall();
    let response: Response;
    try {
      response = await fetch(request.url, { headers: offset > 0 ? { Range: `bytes=${offset}-` } : {}, signal: controller.signal, redirect: 'follow' });
    } catch (error) {
      throw cancelled() ?? new DownloadError('network_error', `Could not reach ${new URL(request.url).host}: ${(error as Error).cause ? String((error as { cause: Error }).cause.message) : (error as Error).message}`);
    }

    let total: number | null = null;
    if (response.status === 416 && offset > 0) {
      // The part already holds the whole file (or more): verify what is there.
      const whole = /\/(\d+)$/.exec(response.headers.get('content-range') ?? '');
      await response.body?.cancel();
      if (!whole || Number(whole[1]) !== offset) {
        fs.rmSync(part, { force: true });
        throw new DownloadError('http_error', 'The partial download does not fit the file on the server; it was discarded, start again.', 416);
      }
      total = offset;
    } else if (response.status === 206 && offset > 0) {
      const range = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(response.headers.get('content-range') ?? '');
      if (!range || Number(range[1]) !== offset) {
        await response.body?.cancel();
        throw new DownloadError('http_error', `The server answered a different byte range (${response.headers.get('content-range') ?? 'none'}).`, 206);
      }
      total = range[3] === '*' ? null : Number(range[3]);
    } else if (response.status === 200) {
      if (offset > 0) fs.truncateSync(part, 0); // the server ignores Range: start over
      offset = 0;
      const length = response.headers.get('content-length');
      total = length !== null ? Number(length) : null;
    } else {
      await response.body?.cancel();
      throw new DownloadError('http_error', `The server answered ${response.status} ${response.statusText} for ${request.url}.`, response.status);
    }

    const shortfall = total === null ? null : spaceShortfall(dir, total - offset, request.freeBytes);
    if (shortfall) {
      await response.body?.cancel();
      throw new DownloadError('disk_full', shortfall);
    }

    const hash = crypto.createHash('sha1');
    if (offset > 0) await hashInto(hash, part, controller.signal);
    request.onStart?.({ totalBytes: total, resumedFrom: offset });
    let received = offset;
    request.onProgress?.(received, total);

    if (response.status !== 416) {
      const out = fs.createWriteStream(part, { flags: offset > 0 ? 'a' : 'w' });
      const failed = new Promise<never>((_, reject) => out.once('error', reject));
      failed.catch(() => {});
      try {
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
          armStall();
          hash.update(chunk);
          received += chunk.length;
          if (!out.write(chunk)) await Promise.race([once(out, 'drain'), failed]);
          request.onProgress?.(received, total);
        }
        out.end();
        await Promise.race([once(out, 'finish'), failed]);
        const fd = fs.openSync(part, 'r');
        try {
          fs.fsyncSync(fd);
        } finally {
          fs.closeSync(fd);
        }
      } catch (error) {
        out.destroy();
        if (isDiskFull(error)) throw new DownloadError('disk_full', `The disk holding ${dir} is full; ${formatBytes(received)} of the file are kept to resume once space is freed.`);
        if (isNotWritable(error)) throw new DownloadError('not_writable', `Cannot write to ${dir} (${(error as NodeJS.ErrnoException).code}).`);
        throw cancelled() ?? new DownloadError('network_error', `The connection broke after ${formatBytes(received)}; start the download again to resume.`);
      }
      if (total !== null && received !== total) {
        throw new DownloadError('network_error', `The server sent ${received} of ${total} bytes; start the download again to resume.`);
      }
    }

    const digest = hash.digest('hex');
    if (digest !== request.sha1.toLowerCase()) {
      fs.rmSync(part, { force: true });
      throw new DownloadError('checksum_mismatch', `The downloaded file's SHA-1 is ${digest}, not the published ${request.sha1}; it was deleted.`);
    }
    fs.renameSync(part, request.dest);
    fsyncDir(dir);
  } finally {
    if (stall) clearTimeout(stall);
    request.signal?.removeEventListener('abort', forward);
  }
}

/** A digest of a file on disk (streamed: models are gigabytes), lower-case hex. */
export async function digestOfFile(file: string, algorithm: 'sha1' | 'sha256', signal?: AbortSignal): Promise<string> {
  const hash = crypto.createHash(algorithm);
  await hashInto(hash, file, signal);
  return hash.digest('hex');
}

/** SHA-1 of a file on disk (streamed), for verifying a model the user put in place. */
export function sha1OfFile(file: string, signal?: AbortSignal): Promise<string> {
  return digestOfFile(file, 'sha1', signal);
}
