import type { NextFunction, Request, Response } from 'express';
import { HttpError } from './errors';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * Refuses requests whose Host is not this loopback service (DNS rebinding) or whose Origin is another site
 * (cross-site calls from web pages). Requests without Origin (curl, SDKs, same-origin GETs) pass.
 */
export function hostAllowed(hostHeader: string | undefined, port: number): boolean {
  if (!hostHeader) return false;
  const match = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(hostHeader.trim().toLowerCase());
  if (!match) return false;
  const [, host, hostPort] = match;
  return LOOPBACK_HOSTS.has(host!) && (hostPort === undefined || Number(hostPort) === port);
}

export function originAllowed(origin: string | undefined, port: number): boolean {
  if (origin === undefined) return true;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  return url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname) && Number(url.port || 80) === port && url.origin === origin.toLowerCase();
}

export function loopbackGuard(getPort: () => number) {
  return (req: Request, _res: Response, next: NextFunction) => {
    const port = getPort();
    if (!hostAllowed(req.headers.host, port)) return next(new HttpError(403, 'Forbidden: requests must be addressed to the loopback service.', { code: 'forbidden_host' }));
    if (!originAllowed(req.headers.origin, port)) return next(new HttpError(403, 'Forbidden: cross-origin requests are not allowed.', { code: 'forbidden_origin' }));
    next();
  };
}
