import { Router } from 'express';
import type { ServiceMetrics } from './service-metrics';
import type { Readiness } from './readiness';
import { checkMetricsAccess } from './metrics-access';

export interface OperationsDeps {
  metrics: ServiceMetrics;
  readiness: () => Promise<Readiness>;
  /** TAKELINE_METRICS_TOKEN, or null: loopback scrapers only. */
  metricsToken: string | null;
}

/**
 * `/metrics` (Prometheus' text format) and `/readyz` (200 when the database and the storage answer, 503 naming
 * what did not). Both are served whatever Host a request names: a load balancer and a scraper address a node by
 * its own IP, which no public address lists. `/readyz` says nothing but which dependency failed and how;
 * `/metrics` has its own access rule (`checkMetricsAccess`).
 */
export function operationsRouter(deps: OperationsDeps): Router {
  const router = Router();
  router.get('/metrics', async (req, res) => {
    checkMetricsAccess({ authorization: req.headers.authorization, host: req.headers.host, peer: req.socket.remoteAddress }, deps.metricsToken);
    const text = await deps.metrics.text();
    res.setHeader('Content-Type', deps.metrics.contentType);
    res.setHeader('Cache-Control', 'no-store');
    res.send(text);
  });
  router.get('/readyz', async (_req, res) => {
    const state = await deps.readiness();
    res.setHeader('Cache-Control', 'no-store');
    res.status(state.status === 'ready' ? 200 : 503).json(state);
  });
  return router;
}
