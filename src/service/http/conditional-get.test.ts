import { describe, expect, it } from 'vitest';
import { ifNoneMatchHits } from './conditional-get';
import { DocumentCache } from './document-cache';

describe('ifNoneMatchHits', () => {
  it('matches the same tag, one of a list, a weak form of it and *', () => {
    expect(ifNoneMatchHits('"a.1"', '"a.1"')).toBe(true);
    expect(ifNoneMatchHits('"x", "a.1" ,"y"', '"a.1"')).toBe(true);
    expect(ifNoneMatchHits('W/"a.1"', '"a.1"')).toBe(true);
    expect(ifNoneMatchHits(' * ', '"a.1"')).toBe(true);
  });

  it('does not match another tag, an unquoted one, a prefix or no header', () => {
    expect(ifNoneMatchHits('"a.2"', '"a.1"')).toBe(false);
    expect(ifNoneMatchHits('a.1', '"a.1"')).toBe(false);
    expect(ifNoneMatchHits('"a."', '"a.1"')).toBe(false);
    expect(ifNoneMatchHits(undefined, '"a.1"')).toBe(false);
    expect(ifNoneMatchHits('', '"a.1"')).toBe(false);
  });
});

describe('DocumentCache', () => {
  it('makes a document once per ETag and again when the ETag changes', async () => {
    const cache = new DocumentCache(4);
    let made = 0;
    const make = () => Buffer.from(`doc ${++made}`);
    expect((await cache.bytes('s', cache.etag(1), make)).toString()).toBe('doc 1');
    expect((await cache.bytes('s', cache.etag(1), make)).toString()).toBe('doc 1');
    expect((await cache.bytes('s', cache.etag(2), make)).toString()).toBe('doc 2');
    expect(made).toBe(2);
  });

  it('keeps at most its capacity, dropping the least recently used', async () => {
    const cache = new DocumentCache(2);
    let made = 0;
    const make = () => Buffer.from(String(++made));
    await cache.bytes('a', '"1"', make);
    await cache.bytes('b', '"1"', make);
    await cache.bytes('a', '"1"', make); // a is now the most recent
    await cache.bytes('c', '"1"', make); // b leaves
    expect(cache.size).toBe(2);
    expect(made).toBe(3);
    await cache.bytes('a', '"1"', make);
    expect(made).toBe(3);
    await cache.bytes('b', '"1"', make);
    expect(made).toBe(4);
  });

  it('puts a per-start epoch into every ETag, quoted as a strong ETag', () => {
    const one = new DocumentCache();
    const two = new DocumentCache();
    expect(one.etag('s', 3)).toMatch(/^"[A-Za-z0-9_-]+\.s\.3"$/);
    expect(one.etag('s', 3)).not.toBe(two.etag('s', 3));
  });

  it('makes the same ETags in caches given the same epoch (API nodes sharing a database)', () => {
    const one = new DocumentCache(4, 'team1');
    const two = new DocumentCache(4, 'team1');
    expect(one.etag('i', 12, 3)).toBe('"team1.i.12.3"');
    expect(two.etag('i', 12, 3)).toBe(one.etag('i', 12, 3));
    expect(two.etag('i', 13, 3)).not.toBe(one.etag('i', 12, 3));
  });

  it('keeps the bytes a document was made into by an async maker, once per ETag', async () => {
    const cache = new DocumentCache(4);
    let made = 0;
    const make = async () => Buffer.from(`doc ${++made}`);
    expect((await cache.bytes('s', cache.etag(1), make)).toString()).toBe('doc 1');
    expect((await cache.bytes('s', cache.etag(1), make)).toString()).toBe('doc 1');
    expect((await cache.bytes('s', cache.etag(1), () => Buffer.from('not made'))).toString()).toBe('doc 1');
    expect((await cache.bytes('s', cache.etag(2), make)).toString()).toBe('doc 2');
    expect(cache.size).toBe(1);
  });
});
