import type { NextFunction, Request, Response } from 'express';
import { HttpError } from './errors';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * Refuses requests whose Host is not this loopback service (DNS rebinding) or whose Origin is another site
 * (cross-site calls from web pages). Requests without Origin (curl, SDKs, same-origin GETs) pass.
 */
export function hostAllowed(hostHeader: string | undefined, port: number, publicOrigins: readonly string[] = []): boolean {
  if (!hostHeader) return false;
  const match = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(hostHeader.trim().toLowerCase());
  if (!match) return false;
  const [, host, hostPort] = match;
  if (LOOPBACK_HOSTS.has(host!) && (hostPort === undefined || Number(hostPort) === port)) return true;
  // A team API node's public address (TAKELINE_PUBLIC_URL), as the load balancer passes on the user's Host.
  return publicOrigins.some((origin) => {
    const url = new URL(origin);
    return url.hostname === host && Number(hostPort ?? defaultPort(url)) === Number(url.port || defaultPort(url));
  });
}

export function originAllowed(origin: string | undefined, port: number, publicOrigins: readonly string[] = []): boolean {
  if (origin === undefined) return true;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.origin !== origin.toLowerCase()) return false;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname) && Number(url.port || 80) === port) return true;
  return publicOrigins.includes(url.origin);
}

function defaultPort(url: URL): number {
  return url.protocol === 'https:' ? 443 : 80;
}

/** `publicOrigins`: a team API node's addresses behind its load balancer (TAKELINE_PUBLIC_URL), also accepted. */
export function loopbackGuard(getPort: () => number, publicOrigins: readonly string[] = []) {
  return (req: Request, _res: Response, next: NextFunction) => {
    const port = getPort();
    if (!hostAllowed(req.headers.host, port, publicOrigins)) return next(new HttpError(403, 'Forbidden: requests must be addressed to the loopback service.', { code: 'forbidden_host' }));
    if (!originAllowed(req.headers.origin, port, publicOrigins)) return next(new HttpError(403, 'Forbidden: cross-origin requests are not allowed.', { code: 'forbidden_origin' }));
    next();
  };
}
