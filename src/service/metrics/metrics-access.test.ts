import { describe, expect, it } from 'vitest';
import { checkMetricsAccess, isLoopbackPeer } from './metrics-access';
import { loadMetricsConfig } from './metrics-config';
import { ConfigError } from '../config';

const refusal = (request: Parameters<typeof checkMetricsAccess>[0], token: string | null) => {
  try {
    checkMetricsAccess(request, token);
    return null;
  } catch (error) {
    return (error as { status: number }).status;
  }
};

describe('who may scrape /metrics', () => {
  it('without a token: a scraper on this machine addressing it as loopback, nobody else', () => {
    expect(refusal({ peer: '127.0.0.1', host: '127.0.0.1:8765' }, null)).toBeNull();
    expect(refusal({ peer: '::ffff:127.0.0.1', host: 'localhost:8765' }, null)).toBeNull();
    expect(refusal({ peer: '::1', host: '[::1]:9100' }, null)).toBeNull();
    // Over the network.
    expect(refusal({ peer: '10.0.0.7', host: '10.0.0.5:8765' }, null)).toBe(403);
    expect(refusal({ peer: '::ffff:10.0.0.7', host: '127.0.0.1:8765' }, null)).toBe(403);
    // A web page whose name rebinds to 127.0.0.1: the peer is loopback, the Host is its own name.
    expect(refusal({ peer: '127.0.0.1', host: 'evil.example:8765' }, null)).toBe(403);
    expect(refusal({ peer: '127.0.0.1', host: undefined }, null)).toBe(403);
  });

  it('with a token: whoever presents it, from anywhere; a missing or wrong one is 401 even on loopback', () => {
    const token = 'a'.repeat(20) + 'b';
    expect(refusal({ peer: '10.0.0.7', host: '10.0.0.5:8765', authorization: `Bearer ${token}` }, token)).toBeNull();
    expect(refusal({ peer: '10.0.0.7', host: '10.0.0.5:8765', authorization: `bearer ${token}` }, token)).toBeNull();
    expect(refusal({ peer: '127.0.0.1', host: '127.0.0.1:8765' }, token)).toBe(401);
    expect(refusal({ peer: '127.0.0.1', host: '127.0.0.1:8765', authorization: `Bearer ${token}x` }, token)).toBe(401);
    expect(refusal({ peer: '127.0.0.1', host: '127.0.0.1:8765', authorization: `Basic ${token}` }, token)).toBe(401);
    try {
      checkMetricsAccess({ peer: '127.0.0.1' }, token);
    } catch (error) {
      expect((error as { options: { headers: Record<string, string> } }).options.headers['WWW-Authenticate']).toMatch(/^Bearer /);
    }
  });

  it('knows loopback peers', () => {
    expect(['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1'].map(isLoopbackPeer)).toEqual([true, true, true, true]);
    expect(['10.0.0.1', '::ffff:10.0.0.1', 'fd00::2', '', undefined].map(isLoopbackPeer)).toEqual([false, false, false, false, false]);
  });
});

describe('loadMetricsConfig', () => {
  it('reads the port and the token, and refuses what cannot be right', () => {
    expect(loadMetricsConfig({})).toEqual({ port: null, token: null });
    expect(loadMetricsConfig({ TAKELINE_METRICS_PORT: ' 9464 ', TAKELINE_METRICS_TOKEN: '0123456789abcdef' })).toEqual({ port: 9464, token: '0123456789abcdef' });
    for (const port of ['0', '65536', 'abc', '-1', '9464x']) expect(() => loadMetricsConfig({ TAKELINE_METRICS_PORT: port }), port).toThrow(ConfigError);
    expect(() => loadMetricsConfig({ TAKELINE_METRICS_TOKEN: 'short' })).toThrow(/at least 16/);
    expect(() => loadMetricsConfig({ TAKELINE_METRICS_TOKEN: '0123456789 abcdef' })).toThrow(ConfigError);
  });
});
