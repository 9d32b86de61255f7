import { describe, expect, it } from 'vitest';
import { addressedOrigin, hostAllowed, originAllowed } from './loopback-guard';

describe('loopback guard', () => {
  it('accepts the loopback host on this port', () => {
    for (const host of ['127.0.0.1:8765', 'localhost:8765', '[::1]:8765', '127.0.0.1', 'LOCALHOST:8765']) {
      expect(hostAllowed(host, 8765)).toBe(true);
    }
  });
  it('refuses other hosts and ports', () => {
    for (const host of [undefined, '', 'evil.example:8765', '127.0.0.1:9999', '127.0.0.1.nip.io:8765', '10.0.0.1:8765', 'localhost.evil:8765']) {
      expect(hostAllowed(host, 8765)).toBe(false);
    }
  });
  it('accepts no Origin and the service own origin only', () => {
    expect(originAllowed(undefined, 8765)).toBe(true);
    expect(originAllowed('http://127.0.0.1:8765', 8765)).toBe(true);
    expect(originAllowed('http://localhost:8765', 8765)).toBe(true);
    for (const origin of ['null', 'https://127.0.0.1:8765', 'http://127.0.0.1:8766', 'http://evil.example', 'file://', 'http://127.0.0.1:8765/x']) {
      expect(originAllowed(origin, 8765)).toBe(false);
    }
  });
});

describe('a team API node behind a load balancer (TAKELINE_PUBLIC_URL)', () => {
  const PUBLIC = ['https://takeline.example.com', 'http://takeline.lan:8080'];
  it('also accepts the public addresses, with their own ports only', () => {
    for (const host of ['takeline.example.com', 'TAKELINE.example.com', 'takeline.example.com:443', 'takeline.lan:8080', '127.0.0.1:8765']) {
      expect(hostAllowed(host, 8765, PUBLIC), host).toBe(true);
    }
    for (const host of ['takeline.example.com:8765', 'takeline.example.com:80', 'takeline.lan', 'takeline.lan:8765', 'evil.example', 'example.com']) {
      expect(hostAllowed(host, 8765, PUBLIC), host).toBe(false);
    }
  });
  it('accepts the public origins exactly, and still no other site', () => {
    for (const origin of ['https://takeline.example.com', 'http://takeline.lan:8080', 'http://127.0.0.1:8765']) {
      expect(originAllowed(origin, 8765, PUBLIC), origin).toBe(true);
    }
    for (const origin of ['http://takeline.example.com', 'https://takeline.example.com:8443', 'https://evil.takeline.example.com', 'http://takeline.lan', 'null']) {
      expect(originAllowed(origin, 8765, PUBLIC), origin).toBe(false);
    }
  });
  it('names the origin the request was addressed to, with the public origin\'s scheme (https behind TLS)', () => {
    expect(addressedOrigin('takeline.example.com', 8765, PUBLIC)).toBe('https://takeline.example.com');
    expect(addressedOrigin('takeline.example.com:443', 8765, PUBLIC)).toBe('https://takeline.example.com');
    expect(addressedOrigin('takeline.lan:8080', 8765, PUBLIC)).toBe('http://takeline.lan:8080');
    expect(addressedOrigin('127.0.0.1:8765', 8765, PUBLIC)).toBe('http://127.0.0.1:8765');
    expect(addressedOrigin('LOCALHOST:8765', 8765)).toBe('http://localhost:8765');
    expect(addressedOrigin('evil.example', 8765, PUBLIC)).toBeNull();
    // The same name over http and https (the balancer redirects one to the other): https is what users are sent to.
    expect(addressedOrigin('both.example', 8765, ['http://both.example:443', 'https://both.example'])).toBe('https://both.example');
  });
  it('without public addresses, is the loopback guard as before', () => {
    expect(hostAllowed('takeline.example.com', 8765)).toBe(false);
    expect(originAllowed('https://takeline.example.com', 8765)).toBe(false);
  });
});

describe('loopback guard (property)', () => {
  it('refuses every Host that is not a loopback name on this port, and every Origin but its own', async () => {
    const fc = (await import('fast-check')).default;
    const port = 8765;
    fc.assert(
      fc.property(fc.oneof(fc.domain(), fc.ipV4(), fc.string({ maxLength: 30 })), fc.option(fc.integer({ min: 1, max: 65535 })), (host, p) => {
        const header = p === null ? host : `${host}:${p}`;
        const loopback = ['127.0.0.1', 'localhost'].includes(host.toLowerCase()) && (p === null || p === port);
        if (!loopback) expect(hostAllowed(header, port)).toBe(false);
        const origin = `http://${header}`;
        if (!(loopback && p === port) || host !== host.toLowerCase()) expect(originAllowed(origin, port)).toBe(false);
      }),
      { seed: 13, numRuns: 3000 },
    );
  });
});
