import type { NextFunction, Request, Response } from 'express';
import { HttpError } from './errors';
import type { Access } from '../auth/access';

export const SESSION_COOKIE = 'takeline_session';

export interface Authenticator {
  /** What an active key may see; null for an unknown or revoked key. */
  keyAccess(key: string): Promise<Access | null>;
  /** What a signed-in studio may see; null without a live session. */
  browserAccess(token: string): Promise<Access | null>;
}

/** The access the request was authenticated with (every route behind `requireAuth` has one). */
export function accessOf(res: Response): Access {
  const access = res.locals.access as Access | undefined;
  if (!access) throw new Error('accessOf called on a route outside requireAuth');
  return access;
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
  return async (req: Request, res: Response, next: NextFunction) => {
    const key = presentedKey(req);
    if (key !== null) {
      const access = await auth.keyAccess(key);
      if (access) {
        res.locals.access = access;
        return next();
      }
      return next(new HttpError(401, 'Invalid API key.', { code: 'invalid_api_key', headers: { 'WWW-Authenticate': 'Bearer' } }));
    }
    const cookie = readCookie(req.headers.cookie, SESSION_COOKIE);
    const access = cookie ? await auth.browserAccess(cookie) : null;
    if (access) {
      res.locals.access = access;
      return next();
    }
    next(
      new HttpError(401, 'Missing API key: send "Authorization: Bearer <key>" or "X-API-Key: <key>".', {
        code: 'missing_api_key',
        headers: { 'WWW-Authenticate': 'Bearer' },
      }),
    );
  };
}
