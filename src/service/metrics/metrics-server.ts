import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type NextFunction, type Request, type Response } from 'express';
import { HttpError, renderError } from '../http/errors';
import { operationsRouter, type OperationsDeps } from './operations-routes';

export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

/**
 * A listener of its own for `/metrics`, `/readyz` and `/healthz` (TAKELINE_METRICS_PORT): a worker serves no API,
 * and this is how Prometheus and an orchestrator reach it.
 */
export async function startMetricsServer(deps: OperationsDeps, port: number, host: string, log: (line: string) => void): Promise<MetricsServer> {
  const app = express();
  app.disable('x-powered-by');
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.use(operationsRouter(deps));
  app.use((req: Request) => {
    throw new HttpError(404, `No route ${req.method} ${req.path.slice(0, 200)} (this port serves /metrics, /readyz and /healthz).`, { code: 'not_found' });
  });
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    if (!(error instanceof HttpError)) log(`error on ${req.method} ${req.path.slice(0, 200)}: ${(error as Error)?.stack ?? String(error)}`);
    const rendered = renderError(error, 'fastapi');
    for (const [name, value] of Object.entries(rendered.headers)) res.setHeader(name, value);
    res.status(rendered.status).json(rendered.body);
  });
  const server = http.createServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
