import crypto from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { generateApiKey, hashApiKey, isWellFormedKey, keyHint, matchKeyHash } from './api-keys';

describe('API keys', () => {
  it('have the tl_ prefix and at least 32 base62 characters', () => {
    const keys = Array.from({ length: 200 }, generateApiKey);
    for (const key of keys) {
      expect(key).toMatch(/^tl_[0-9A-Za-z]{40}$/);
      expect(isWellFormedKey(key)).toBe(true);
    }
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('draw every base62 character', () => {
    const seen = new Set(Array.from({ length: 100 }, generateApiKey).join('').slice(3));
    expect(seen.size).toBeGreaterThanOrEqual(62);
  });

  it('rejects malformed keys', () => {
    expect(isWellFormedKey('tl_short')).toBe(false);
    expect(isWellFormedKey('sk_' + 'a'.repeat(40))).toBe(false);
    expect(isWellFormedKey('tl_' + 'a'.repeat(39) + '!')).toBe(false);
  });

  it('matches only the key whose hash is stored', () => {
    const a = generateApiKey();
    const b = generateApiKey();
    const hashes = [hashApiKey(a), hashApiKey(b)];
    expect(matchKeyHash(b, hashes)).toBe(1);
    expect(matchKeyHash(a, hashes)).toBe(0);
    expect(matchKeyHash(generateApiKey(), hashes)).toBe(-1);
    expect(keyHint(a)).not.toContain(a.slice(7, -4));
  });
});

describe('matchKeyHash', () => {
  afterEach(() => vi.restoreAllMocks());

  it('compares in constant time: every stored hash is compared, whichever matches (or none)', () => {
    const stored = Array.from({ length: 5 }, () => generateApiKey());
    const hashes = stored.map(hashApiKey);
    const compare = vi.spyOn(crypto, 'timingSafeEqual');
    for (const presented of [stored[0]!, stored[4]!, generateApiKey(), '', 'x'.repeat(10_000)]) {
      compare.mockClear();
      matchKeyHash(presented, hashes);
      expect(compare).toHaveBeenCalledTimes(hashes.length);
    }
  });
});
