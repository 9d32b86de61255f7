import type { NextFunction, Request, Response } from 'express';
import { HttpError } from './errors';

export const SESSION_COOKIE = 'takeline_session';

export interface Authenticator {
  isValidKey(key: string): boolean;
  isValidBrowserSession(token: string): boolean;
}

export function readCookie(header: string | undefined, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const index = part.indexOf('=');
    if (index > 0 && part.slice(0, index).trim() === name) return decodeURIComponent(part.slice(index + 1).trim());
  }
  return null;
}

/** The key from `Authorization: Bearer` (BearerAuth) or `X-API-Key` (ApiKeyHeader). */
export function presentedKey(req: Request): string | null {
  const auth = req.headers.authorization;
  if (auth) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(auth);
    return match ? match[1]! : '';
  }
  const header = req.headers['x-api-key'];
  if (typeof header === 'string') return header.trim();
  return null;
}

export function requireAuth(auth: Authenticator) {
  return (req: Request, _res: Response, next: NextFunction) => {
    const key = presentedKey(req);
    if (key !== null) {
      if (auth.isValidKey(key)) return next();
      return next(new HttpError(401, 'Invalid API key.', { code: 'invalid_api_key', headers: { 'WWW-Authenticate': 'Bearer' } }));
    }
    const cookie = readCookie(req.headers.cookie, SESSION_COOKIE);
    if (cookie && auth.isValidBrowserSession(cookie)) return next();
    next(
      new HttpError(401, 'Missing API key: send "Authorization: Bearer <key>" or "X-API-Key: <key>".', {
        code: 'missing_api_key',
        headers: { 'WWW-Authenticate': 'Bearer' },
      }),
    );
  };
}
