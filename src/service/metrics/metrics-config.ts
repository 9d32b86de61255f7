import { ConfigError } from '../config';

export interface MetricsConfig {
  /** A listener of its own for `/metrics`, `/readyz` and `/healthz` (TAKELINE_METRICS_PORT): how a worker is scraped. */
  port: number | null;
  /** When set, `/metrics` answers anyone presenting it as a bearer token (TAKELINE_METRICS_TOKEN); else loopback only. */
  token: string | null;
}

export function loadMetricsConfig(env: NodeJS.ProcessEnv): MetricsConfig {
  const rawPort = env.TAKELINE_METRICS_PORT?.trim();
  let port: number | null = null;
  if (rawPort) {
    if (!/^\d+$/.test(rawPort) || Number(rawPort) < 1 || Number(rawPort) > 65535) {
      throw new ConfigError(`TAKELINE_METRICS_PORT must be a port number from 1 to 65535, got "${env.TAKELINE_METRICS_PORT}"`);
    }
    port = Number(rawPort);
  }
  const token = env.TAKELINE_METRICS_TOKEN?.trim() || null;
  if (token !== null && (token.length < 16 || /\s/.test(token))) {
    throw new ConfigError('TAKELINE_METRICS_TOKEN must be at least 16 characters without spaces (e.g. `openssl rand -hex 24`).');
  }
  return { port, token };
}
