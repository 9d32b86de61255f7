import type { Response } from 'express';
import { SESSION_COOKIE } from './authenticate';
import { requestOrigin } from './loopback-guard';

/** `; Secure` when the user reached the service over https (a team behind TLS). */
export function secureAttribute(res: Response): string {
  return requestOrigin(res).startsWith('https:') ? '; Secure' : '';
}

/** The studio's session cookie: HttpOnly, same-site only. */
export function sessionCookie(res: Response, token: string, maxAgeSeconds: number): string {
  return `${SESSION_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${secureAttribute(res)}`;
}

/** The session cookie gone (signing out). */
export function clearedSessionCookie(res: Response): string {
  return `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0${secureAttribute(res)}`;
}
