import crypto from 'node:crypto';

/**
 * What a sign-in started at /auth/oidc/login must find again at /auth/oidc/callback: the `state` and `nonce` it
 * sent and the PKCE verifier of its code challenge, and the redirect URI it named. Kept in the browser in a
 * cookie sealed with AES-256-GCM under a key every API node shares (the `secrets` table), so the callback may
 * reach any node behind the load balancer; the seal makes it unreadable and unforgeable, `expiresAt` short-lived.
 */
export interface SignInTransaction {
  state: string;
  nonce: string;
  codeVerifier: string;
  redirectUri: string;
  /** Epoch milliseconds after which the callback is refused. */
  expiresAt: number;
}

export const TRANSACTION_COOKIE = 'takeline_oidc';
/** The name of the sealing key in the shared secrets. */
export const OIDC_TRANSACTION_SECRET = 'oidc-transaction';
/** Ten minutes to sign in at the provider. */
export const TRANSACTION_LIFETIME_MS = 10 * 60 * 1000;

const VERSION = 'v1';

export function sealTransaction(key: Buffer, transaction: SignInTransaction): string {
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv('aes-256-gcm', key, iv);
  // The cookie's name and version are authenticated too: a sealed value made for something else never opens here.
  cipher.setAAD(Buffer.from(`${TRANSACTION_COOKIE}.${VERSION}`));
  const body = Buffer.concat([cipher.update(JSON.stringify(transaction), 'utf8'), cipher.final()]);
  return [VERSION, iv.toString('base64url'), body.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
}

/** The transaction in a sealed value, or null when it is not one of ours, was altered, or has expired. */
export function openTransaction(key: Buffer, sealed: string | null, now = Date.now()): SignInTransaction | null {
  if (!sealed || sealed.length > 4096) return null;
  const parts = sealed.split('.');
  if (parts.length !== 4 || parts[0] !== VERSION) return null;
  try {
    const [iv, body, tag] = parts.slice(1).map((part) => Buffer.from(part, 'base64url'));
    if (iv!.length !== 12 || tag!.length !== 16) return null;
    const decipher = crypto.createDecipheriv('aes-256-gcm', key, iv!);
    decipher.setAAD(Buffer.from(`${TRANSACTION_COOKIE}.${VERSION}`));
    decipher.setAuthTag(tag!);
    const value = JSON.parse(Buffer.concat([decipher.update(body!), decipher.final()]).toString('utf8')) as SignInTransaction;
    if (typeof value.expiresAt !== 'number' || value.expiresAt <= now) return null;
    if (![value.state, value.nonce, value.codeVerifier, value.redirectUri].every((v) => typeof v === 'string' && v.length > 0)) return null;
    return value;
  } catch {
    return null;
  }
}
