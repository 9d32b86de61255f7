import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/** The studio's Content-Security-Policy (index.html's meta tag, the same page in Electron and a browser). */
function policy(): Map<string, string[]> {
  const html = fs.readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), 'index.html'), 'utf8');
  const content = /http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(html)?.[1];
  if (!content) throw new Error('index.html has no Content-Security-Policy');
  return new Map(content.split(';').map((d) => d.trim().split(/\s+/)).map(([name, ...values]) => [name!, values]));
}

describe('the studio Content-Security-Policy', () => {
  it('loads scripts only from the service itself: no inline or eval, no other hosts', () => {
    const csp = policy();
    expect(csp.get('default-src')).toEqual(["'self'"]);
    expect(csp.get('script-src')).toEqual(["'self'"]);
    for (const values of csp.values()) {
      expect(values).not.toContain("'unsafe-eval'");
      expect(values).not.toContain('*');
      for (const v of values) expect(v).not.toMatch(/^(https?:\/\/(?!127\.0\.0\.1:)|data:.*script)/);
    }
  });

  it('connects and plays media only from the loopback service', () => {
    const csp = policy();
    expect(csp.get('connect-src')!.every((v) => v === "'self'" || v.startsWith('http://127.0.0.1:'))).toBe(true);
    expect(csp.get('media-src')!.every((v) => ["'self'", 'blob:'].includes(v) || v.startsWith('http://127.0.0.1:'))).toBe(true);
    // No plugins at all, and no <base> or form pointing elsewhere.
    expect(csp.get('object-src')).toEqual(["'none'"]);
    expect(csp.get('base-uri')).toEqual(["'self'"]);
    expect(csp.get('form-action')).toEqual(["'self'"]);
  });
});
