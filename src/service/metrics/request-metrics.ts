import type { NextFunction, Request, Response } from 'express';
import type { Histogram } from 'prom-client';

/** A request no route answered (refused before routing, a static file, a 404). */
export const UNMATCHED_ROUTE = 'none';

/**
 * The route pattern a request was answered by, never its path: `/v1/speech/transcriptions/:id`, not the id, so the
 * label's values are as many as the routes. Express keeps only the router-relative pattern (`/:id`) on the request,
 * and by the time the response ends an error has unwound its router's mount path; the routers are mounted at fixed
 * paths, so the mount is the path's segments before those the pattern matched.
 */
export function routeLabel(path: string, routePath: unknown): string {
  if (routePath === undefined || routePath === null) return UNMATCHED_ROUTE;
  if (typeof routePath !== 'string') return String(routePath);
  const matched = routePath.split('/').filter(Boolean).length;
  const segments = path.split('?')[0]!.split('/').filter(Boolean);
  if (matched > segments.length) return routePath;
  const mount = segments.slice(0, segments.length - matched).join('/');
  const tail = routePath === '/' ? '' : routePath;
  return `${mount ? `/${mount}` : ''}${tail}` || '/';
}

/** Times every request from its arrival to its last byte, labelled by method, route pattern and status. */
export function requestMetrics(histogram: Histogram<'method' | 'route' | 'status'>) {
  return (req: Request, res: Response, next: NextFunction) => {
    const start = process.hrtime.bigint();
    res.once('finish', () => {
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      const route = routeLabel(req.originalUrl, (req as { route?: { path?: unknown } }).route?.path);
      histogram.observe({ method: req.method, route, status: String(res.statusCode) }, seconds);
    });
    next();
  };
}
