import express from 'express';
import type { NextFunction, Request, Response } from 'express';
import { HttpError } from './errors';
import { InvalidInputError, issue } from '../errors';

/**
 * JSON bodies up to 1 MiB. Malformed JSON is invalid input (422 json_invalid, as FastAPI answers), a body
 * that is not JSON at all is 415, and an oversized one 413.
 */
export function jsonBody() {
  const parse = express.json({ limit: '1mb', strict: false, type: () => true });
  return (req: Request, res: Response, next: NextFunction) => {
    const hasBody = req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0'
      || req.headers['transfer-encoding'] !== undefined;
    if (!['POST', 'PATCH', 'PUT'].includes(req.method) || !hasBody) return next();
    const type = req.headers['content-type'] ?? '';
    if (req.is('multipart/form-data')) return next();
    if (!/^application\/([a-z0-9.+-]*\+)?json\s*(;|$)/i.test(type)) {
      return next(new HttpError(415, 'The request body must be JSON (Content-Type: application/json).', { code: 'unsupported_media_type' }));
    }
    parse(req, res, (error?: unknown) => {
      if (!error) return next();
      const err = error as { type?: string; status?: number; message?: string; body?: string };
      if (err.type === 'entity.too.large') return next(new HttpError(413, 'The JSON body is larger than 1 MiB.', { code: 'body_too_large' }));
      if (err.type === 'entity.parse.failed') {
        return next(new InvalidInputError([issue(['body'], 'JSON decode error', 'json_invalid', err.body ?? null, { error: err.message ?? '' })]));
      }
      next(new HttpError(400, 'The request body could not be read.', { code: 'bad_request' }));
    });
  };
}
