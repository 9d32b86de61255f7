import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signAudio, verifyAudioSignature } from './signed-url';

describe('signed audio addresses', () => {
  const secret = crypto.randomBytes(32);
  const now = 1_800_000_000;
  const expires = now + 3600;
  const sig = signAudio(secret, 'session-a', expires);

  it('verify before expiry', () => {
    expect(verifyAudioSignature(secret, 'session-a', String(expires), sig, now)).toBe(true);
  });
  it('refuse after expiry', () => {
    expect(verifyAudioSignature(secret, 'session-a', String(expires), sig, expires)).toBe(false);
  });
  it('refuse another session, another expiry, another secret or a tampered signature', () => {
    expect(verifyAudioSignature(secret, 'session-b', String(expires), sig, now)).toBe(false);
    expect(verifyAudioSignature(secret, 'session-a', String(expires + 1), sig, now)).toBe(false);
    expect(verifyAudioSignature(crypto.randomBytes(32), 'session-a', String(expires), sig, now)).toBe(false);
    expect(verifyAudioSignature(secret, 'session-a', String(expires), sig.slice(0, -1) + (sig.endsWith('A') ? 'B' : 'A'), now)).toBe(false);
    expect(verifyAudioSignature(secret, 'session-a', undefined, sig, now)).toBe(false);
    expect(verifyAudioSignature(secret, 'session-a', '1e9', sig, now)).toBe(false);
  });
});

describe('signed audio addresses under tampering (property)', () => {
  const secret = crypto.randomBytes(32);
  const now = 1_800_000_000;

  it('refuse any change to any character of the session, expiry or signature', async () => {
    const fc = (await import('fast-check')).default;
    fc.assert(
      fc.property(fc.uuid(), fc.integer({ min: 1, max: 86_400 }), fc.nat(), fc.constantFrom('session', 'expires', 'signature'), fc.string({ minLength: 1, maxLength: 1 }), (id, ttl, at, part, replacement) => {
        const expires = String(now + ttl);
        const signature = signAudio(secret, id, Number(expires));
        const fields = { session: id, expires, signature };
        const target = fields[part];
        const index = at % target.length;
        if (target[index] === replacement) return;
        const tampered = { ...fields, [part]: target.slice(0, index) + replacement + target.slice(index + 1) };
        // A changed expiry that still reads as the same number is the same address; everything else is refused.
        if (part === 'expires' && Number(tampered.expires) === Number(expires) && /^\d+$/.test(tampered.expires)) return;
        expect(verifyAudioSignature(secret, tampered.session, tampered.expires, tampered.signature, now)).toBe(false);
      }),
      { seed: 13, numRuns: 2000 },
    );
  });
});
