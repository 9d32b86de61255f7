import crypto from 'node:crypto';

export const KEY_PREFIX = 'tl_';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SECRET_LENGTH = 40;
export const KEY_PATTERN = /^tl_[0-9A-Za-z]{32,}$/;

/** `tl_` + 40 base62 characters (~238 bits), drawn without modulo bias. */
export function generateApiKey(): string {
  let out = KEY_PREFIX;
  while (out.length < KEY_PREFIX.length + SECRET_LENGTH) {
    for (const byte of crypto.randomBytes(64)) {
      // 248 = 62 * 4: bytes at or above it would favour the first characters.
      if (byte < 248) out += BASE62[byte % 62];
      if (out.length === KEY_PREFIX.length + SECRET_LENGTH) break;
    }
  }
  return out;
}

export function isWellFormedKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}

/** Keys are long and random, so a plain SHA-256 is a safe verifier; only this hash is stored. */
export function hashApiKey(key: string): Buffer {
  return crypto.createHash('sha256').update(key, 'utf8').digest();
}

/** A short, non-secret reminder of which key this is, for `keys list`. */
export function keyHint(key: string): string {
  return `${key.slice(0, 7)}…${key.slice(-4)}`;
}

/** Constant-time check of a presented key against stored hashes (every hash is compared). */
export function matchKeyHash(presented: string, hashes: Buffer[]): number {
  const candidate = hashApiKey(presented);
  let found = -1;
  hashes.forEach((hash, index) => {
    if (hash.length === candidate.length && crypto.timingSafeEqual(hash, candidate) && found < 0) found = index;
  });
  return found;
}
