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
