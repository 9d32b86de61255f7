import crypto from 'node:crypto';

/**
 * Signed, expiring addresses for the original audio, so an <audio> element can play a recording without
 * an API key. The signature is HMAC-SHA256 over the session id and the expiry.
 */
export function signAudio(secret: Buffer, sessionId: string, expires: number): string {
  return signResource(secret, `audio:${sessionId}`, expires);
}

/** The signature of any served resource (a recording, a dub revision), named so one cannot stand for another. */
export function signResource(secret: Buffer, resource: string, expires: number): string {
  return crypto.createHmac('sha256', secret).update(`${resource}:${expires}`).digest('base64url');
}

export function verifyAudioSignature(
  secret: Buffer,
  sessionId: string,
  expiresRaw: unknown,
  signature: unknown,
  nowSeconds = Math.floor(Date.now() / 1000),
): boolean {
  return verifyResourceSignature(secret, `audio:${sessionId}`, expiresRaw, signature, nowSeconds);
}

export function verifyResourceSignature(
  secret: Buffer,
  resource: string,
  expiresRaw: unknown,
  signature: unknown,
  nowSeconds = Math.floor(Date.now() / 1000),
): boolean {
  if (typeof expiresRaw !== 'string' || typeof signature !== 'string' || !/^\d{1,12}$/.test(expiresRaw)) return false;
  const expires = Number(expiresRaw);
  const expected = Buffer.from(signResource(secret, resource, expires));
  const given = Buffer.from(signature);
  const valid = given.length === expected.length && crypto.timingSafeEqual(given, expected);
  return valid && expires > nowSeconds;
}
