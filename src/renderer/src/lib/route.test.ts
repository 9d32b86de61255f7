import { describe, expect, it } from 'vitest';
import { parseRoute, routeHash } from './route';

describe('routes', () => {
  it('round-trips every route', () => {
    for (const r of [
      { name: 'projects' as const },
      { name: 'project' as const, key: 'demo_1' },
      { name: 'recording' as const, id: 'a b/c' },
      { name: 'dub' as const, sessionId: 's/1', dubId: 'd 2' },
      { name: 'settings' as const },
    ]) {
      expect(parseRoute(routeHash(r))).toEqual(r);
    }
  });

  it('falls back to the project list', () => {
    expect(parseRoute('')).toEqual({ name: 'projects' });
    expect(parseRoute('#/nowhere')).toEqual({ name: 'projects' });
    expect(parseRoute('#/projects/')).toEqual({ name: 'projects' });
  });
});
