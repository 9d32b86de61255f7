import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { openTransaction, sealTransaction, type SignInTransaction } from './transaction';

const key = crypto.randomBytes(32);
const transaction: SignInTransaction = {
  state: 'state-1',
  nonce: 'nonce-1',
  codeVerifier: 'verifier-1',
  redirectUri: 'https://takeline.example.com/auth/oidc/callback',
  expiresAt: 2_000_000,
};

describe('the sign-in transaction cookie', () => {
  it('opens to what was sealed, on any node holding the shared key, until it expires', () => {
    const sealed = sealTransaction(key, transaction);
    expect(openTransaction(Buffer.from(key), sealed, 1_999_999)).toEqual(transaction);
    expect(openTransaction(key, sealed, 2_000_000)).toBeNull();
  });

  it('hides its contents: neither the verifier nor the nonce can be read from the cookie', () => {
    const sealed = sealTransaction(key, transaction);
    expect(sealed).not.toContain('verifier-1');
    expect(Buffer.from(sealed.split('.')[2]!, 'base64url').toString('latin1')).not.toContain('verifier');
    // Sealed twice, the same transaction looks different (a fresh IV each time).
    expect(sealTransaction(key, transaction)).not.toBe(sealed);
  });

  it('refuses a cookie altered anywhere, sealed under another key, or not ours at all', () => {
    const sealed = sealTransaction(key, transaction);
    const parts = sealed.split('.');
    const body = Buffer.from(parts[2]!, 'base64url');
    body[0] = body[0]! ^ 1;
    expect(openTransaction(key, [parts[0], parts[1], body.toString('base64url'), parts[3]].join('.'), 0)).toBeNull();
    expect(openTransaction(key, [parts[0], parts[1], parts[2], Buffer.alloc(16).toString('base64url')].join('.'), 0)).toBeNull();
    expect(openTransaction(crypto.randomBytes(32), sealed, 0)).toBeNull();
    expect(openTransaction(key, 'v1.a.b', 0)).toBeNull();
    expect(openTransaction(key, null, 0)).toBeNull();
    expect(openTransaction(key, 'x'.repeat(5000), 0)).toBeNull();
  });
});
