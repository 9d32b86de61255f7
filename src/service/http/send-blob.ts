import type { Request, Response } from 'express';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import type { BlobInfo, ByteRange } from '../storage/blobs/blob-store';
import { HttpError } from './errors';

/**
 * What a `Range` header asks of a `size`-byte object: null for the whole (no header, a unit other than bytes,
 * several ranges, or an `If-Range` that no longer matches), a range, or 'unsatisfiable' (416). Several ranges
 * are answered whole, as RFC 9110 allows; players ask for one.
 */
export function requestedByteRange(
  header: string | undefined,
  size: number,
): ByteRange | 'unsatisfiable' | null {
  if (!header) return null;
  const match = /^bytes=\s*(\d*)\s*-\s*(\d*)\s*$/.exec(header.trim());
  if (!match) return null;
  const [, first, last] = match as unknown as [string, string, string];
  if (first === '' && last === '') return null;
  let start: number;
  let end: number;
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0) return 'unsatisfiable';
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(first);
    end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
    if (last !== '' && Number(last) < start) return null;
  }
  if (start >= size || size === 0) return 'unsatisfiable';
  return { start, end };
}

/**
 * Serves a stored object with what `res.sendFile` gives a file: HEAD, single byte ranges (206, or 416 beyond
 * the end), Last-Modified and a validator from size and time, `If-None-Match`/`If-Modified-Since` (304) and
 * `If-Range`. The caller has set Content-Type and Cache-Control.
 */
export async function sendBlob(
  req: Request,
  res: Response,
  info: BlobInfo,
  read: (range?: ByteRange) => Promise<Readable | null>,
  missing: string,
): Promise<void> {
  const etag = `W/"${info.size.toString(16)}-${info.modified.getTime().toString(16)}"`;
  const lastModified = new Date(Math.floor(info.modified.getTime() / 1000) * 1000);
  res.setHeader('Accept-Ranges', 'bytes');
  res.setHeader('ETag', etag);
  res.setHeader('Last-Modified', lastModified.toUTCString());
  const ifNoneMatch = req.headers['if-none-match'];
  const ifModifiedSince = req.headers['if-modified-since'];
  if (
    ifNoneMatch
      ? ifNoneMatch.split(',').some((t) => t.trim() === etag || t.trim() === '*')
      : ifModifiedSince && Date.parse(ifModifiedSince) >= lastModified.getTime()
  ) {
    res.status(304).end();
    return;
  }
  // An If-Range that no longer matches asks for the whole object.
  const ifRange = req.get('if-range');
  const rangeHeader = ifRange && ifRange !== etag && Date.parse(ifRange) !== lastModified.getTime() ? undefined : req.headers.range;
  const range = requestedByteRange(typeof rangeHeader === 'string' ? rangeHeader : undefined, info.size);
  if (range === 'unsatisfiable') {
    throw new HttpError(416, 'The requested range is beyond the end of the file.', {
      code: 'range_not_satisfiable',
      headers: { 'Content-Range': `bytes */${info.size}` },
    });
  }
  const length = range ? range.end - range.start + 1 : info.size;
  if (req.method === 'HEAD') {
    res.status(range ? 206 : 200);
    if (range) res.setHeader('Content-Range', `bytes ${range.start}-${range.end}/${info.size}`);
    res.setHeader('Content-Length', String(length));
    res.end();
    return;
  }
  const body = await read(range ?? undefined);
  if (!body) throw new HttpError(404, missing, { code: 'file_missing' });
  res.status(range ? 206 : 200);
  if (range) res.setHeader('Content-Range', `bytes ${range.start}-${range.end}/${info.size}`);
  res.setHeader('Content-Length', String(length));
  try {
    await pipeline(body, res);
  } catch {
    // The client went away mid-body (or the store failed after the headers left): nothing more to answer.
    body.destroy();
  }
}
