import type { NextFunction, Request, Response } from 'express';
import { HttpError } from './errors';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * Refuses requests whose Host is not this loopback service (DNS rebinding) or whose Origin is another site
 * (cross-site calls from web pages). Requests without Origin (curl, SDKs, same-origin GETs) pass.
 */
export function hostAllowed(hostHeader: string | undefined, port: number, publicOrigins: readonly string[] = []): boolean {
  return addressedOrigin(hostHeader, port, publicOrigins) !== null;
}

/**
 * The origin a request was addressed to, for the addresses the service writes into its answers (signed audio
 * addresses, the OpenAPI document's server) and for the sign-in cookie's `Secure`: the loopback service's
 * `http://host:port`, or the team's public origin (TAKELINE_PUBLIC_URL) the Host names, with that origin's
 * scheme, since a TLS load balancer in front speaks https to users and plain http to the node (no forwarded
 * header is trusted: the configuration says which scheme users see). Where two public origins share the Host,
 * https is preferred. Null when the Host is not this service's.
 */
export function addressedOrigin(hostHeader: string | undefined, port: number, publicOrigins: readonly string[] = []): string | null {
  if (!hostHeader) return null;
  const match = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(hostHeader.trim().toLowerCase());
  if (!match) return null;
  const [, host, hostPort] = match;
  if (LOOPBACK_HOSTS.has(host!) && (hostPort === undefined || Number(hostPort) === port)) return `http://${hostHeader.trim().toLowerCase()}`;
  // A team API node's public address, as the load balancer passes on the user's Host.
  const named = publicOrigins.filter((origin) => {
    const url = new URL(origin);
    return url.hostname === host && Number(hostPort ?? defaultPort(url)) === Number(url.port || defaultPort(url));
  });
  return named.find((origin) => origin.startsWith('https:')) ?? named[0] ?? null;
}

/** The origin the guard found the request addressed to (`addressedOrigin`), kept for the request's handlers. */
export function requestOrigin(res: Response): string {
  return (res.locals as { origin: string }).origin;
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
  return (req: Request, res: Response, next: NextFunction) => {
    const port = getPort();
    const origin = addressedOrigin(req.headers.host, port, publicOrigins);
    if (origin === null) return next(new HttpError(403, 'Forbidden: requests must be addressed to the loopback service.', { code: 'forbidden_host' }));
    if (!originAllowed(req.headers.origin, port, publicOrigins)) return next(new HttpError(403, 'Forbidden: cross-origin requests are not allowed.', { code: 'forbidden_origin' }));
    res.locals.origin = origin;
    next();
  };
}
