import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { Histogram, Registry } from 'prom-client';
import { requestMetrics, routeLabel, UNMATCHED_ROUTE } from './request-metrics';

describe('routeLabel', () => {
  it('names the route pattern, with the mount the path reached it through, never the ids in the path', () => {
    expect(routeLabel('/v1/speech/transcriptions/4f1c2b/intelligence', '/:session_id/intelligence')).toBe('/v1/speech/transcriptions/:session_id/intelligence');
    expect(routeLabel('/v1/speech/transcriptions/4f1c2b?x=1', '/:session_id')).toBe('/v1/speech/transcriptions/:session_id');
    expect(routeLabel('/v1/speech/projects/p1/speakers/s2', '/:project/speakers/:speaker')).toBe('/v1/speech/projects/:project/speakers/:speaker');
  });

  it('keeps a router’s root route and the application’s own routes as they are', () => {
    expect(routeLabel('/v1/speech/projects', '/')).toBe('/v1/speech/projects');
    expect(routeLabel('/v1/speech/projects/', '/')).toBe('/v1/speech/projects');
    expect(routeLabel('/healthz', '/healthz')).toBe('/healthz');
    expect(routeLabel('/', '/')).toBe('/');
  });

  it('says "none" for a request no route answered, and names a pattern that is not a string by its source', () => {
    expect(routeLabel('/v1/speech/transcriptions/abc', undefined)).toBe(UNMATCHED_ROUTE);
    expect(routeLabel('/assets/index-1234.js', undefined)).toBe(UNMATCHED_ROUTE);
    expect(routeLabel('/projects/x', /^\/(?!v1\/).*/)).toBe('/^\\/(?!v1\\/).*/');
  });
});

describe('requestMetrics', () => {
  it('observes each request once it has finished, by method, route pattern and status', async () => {
    const registry = new Registry();
    const histogram = new Histogram({ name: 'requests', help: 'h', labelNames: ['method', 'route', 'status'], registers: [registry], buckets: [1] });
    const middleware = requestMetrics(histogram);
    const req = { method: 'GET', originalUrl: '/v1/speech/transcriptions/abc', route: undefined as unknown };
    const res = Object.assign(new EventEmitter(), { statusCode: 200 });
    let called = false;
    middleware(req as never, res as never, () => (called = true));
    expect(called).toBe(true);
    expect((await histogram.get()).values.filter((v) => v.metricName === 'requests_count')).toEqual([]);
    req.route = { path: '/:session_id' };
    res.statusCode = 404;
    res.emit('finish');
    const counts = (await histogram.get()).values.filter((v) => v.metricName === 'requests_count');
    expect(counts).toEqual([{ labels: { method: 'GET', route: '/v1/speech/transcriptions/:session_id', status: '404' }, value: 1, metricName: 'requests_count' }]);
  });
});
