import crypto from 'node:crypto';
import { HttpError } from '../http/errors';

const LOOPBACK_HOSTNAMES = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** Whether a socket's peer is this machine (IPv4's 127/8, IPv6's ::1, and IPv4 loopback mapped into IPv6). */
export function isLoopbackPeer(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return v4.startsWith('127.') || address === '::1';
}

function hostnameOf(host: string | undefined): string | null {
  const match = host ? /^(\[[^\]]+\]|[^:]+)(?::\d+)?$/.exec(host.trim().toLowerCase()) : null;
  return match ? match[1]! : null;
}

function sameToken(given: string, token: string): boolean {
  const digest = (value: string) => crypto.createHash('sha256').update(value).digest();
  return crypto.timingSafeEqual(digest(given), digest(token));
}

/**
 * Who may scrape `/metrics`. With TAKELINE_METRICS_TOKEN set: whoever presents it (`Authorization: Bearer …`),
 * from anywhere, which is how Prometheus reaches a team's nodes over the network. Without it: only a scraper on
 * this machine addressing it as loopback, so a node listening on every interface shows nothing to the network,
 * and a web page that rebinds its own name to 127.0.0.1 (Host: its name) is refused as the API's guard refuses it.
 * Throws the refusal (401 for a missing or wrong token, 403 for a remote scraper without a configured token).
 */
export function checkMetricsAccess(request: { authorization?: string; host?: string; peer?: string }, token: string | null): void {
  if (token !== null) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(request.authorization ?? '');
    if (match && sameToken(match[1]!, token)) return;
    throw new HttpError(401, 'The metrics need the token TAKELINE_METRICS_TOKEN sets, as `Authorization: Bearer <token>`.', {
      code: 'invalid_metrics_token',
      headers: { 'WWW-Authenticate': 'Bearer realm="takeline-metrics"' },
    });
  }
  if (isLoopbackPeer(request.peer) && LOOPBACK_HOSTNAMES.has(hostnameOf(request.host) ?? '')) return;
  throw new HttpError(403, 'The metrics answer scrapers on this machine (127.0.0.1) only; set TAKELINE_METRICS_TOKEN to let Prometheus scrape over the network.', {
    code: 'metrics_loopback_only',
  });
}
