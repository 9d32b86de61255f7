import { startMetricsServer } from '../metrics/metrics-server';
import type { MetricsConfig } from '../metrics/metrics-config';
import type { Core } from './core';

/**
 * Once at start, in every role: the log names a dependency that does not answer (and the storage gets its probe
 * object); with `TAKELINE_METRICS_PORT`, a listener of its own for `/metrics`, `/readyz` and `/healthz` (a
 * worker's only way to be scraped; an API node answers them on its own port as well). Returns its closer.
 */
export async function startOperations(core: Core, config: MetricsConfig): Promise<() => Promise<void>> {
  await core.operations.readiness();
  if (config.port === null) return async () => {};
  const server = await startMetricsServer(core.operations, config.port, core.config.host, core.log);
  core.log(`takeline metrics on http://${core.config.host}:${server.port}/metrics`);
  return () => server.close();
}
