import type { Request, Response } from 'express';

/**
 * Whether an `If-None-Match` header matches `etag` (RFC 9110 §13.1.2: `*`, or any listed tag by the weak
 * comparison, so `W/"x"` matches `"x"`).
 */
export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  const bare = (tag: string) => tag.trim().replace(/^W\//, '');
  const wanted = bare(etag);
  return header.split(',').some((tag) => bare(tag) === wanted);
}

/**
 * Answers a polled JSON document with its strong ETag: 304 with no body when the client already has it
 * (the body is then never built), else 200 with the bytes. `no-cache`: clients may keep the document but
 * must revalidate it on every use; `private`: no shared cache keeps it.
 */
export async function sendConditionalJson(req: Request, res: Response, etag: string, body: () => Buffer | Promise<Buffer>): Promise<void> {
  res.setHeader('ETag', etag);
  res.setHeader('Cache-Control', 'private, no-cache');
  if (ifNoneMatchHits(req.headers['if-none-match'], etag)) {
    res.status(304).end();
    return;
  }
  res.type('json').send(await body());
}
