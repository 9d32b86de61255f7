import crypto from 'node:crypto';

const TOKEN_TTL_MS = 24 * 3600 * 1000;

/**
 * One-time sign-in links for the studio in a browser, like a notebook server's token link: the token is
 * good once, then the browser holds an HttpOnly cookie instead. Tokens live only in this process.
 */
export class SignInTokens {
  private readonly tokens = new Map<string, number>();

  issue(now = Date.now()): string {
    for (const [hash, expires] of this.tokens) if (expires <= now) this.tokens.delete(hash);
    const token = crypto.randomBytes(24).toString('base64url');
    this.tokens.set(this.hash(token), now + TOKEN_TTL_MS);
    return token;
  }

  consume(token: unknown, now = Date.now()): boolean {
    if (typeof token !== 'string' || token.length > 200) return false;
    const hash = this.hash(token);
    const expires = this.tokens.get(hash);
    this.tokens.delete(hash);
    return expires !== undefined && expires > now;
  }

  private hash(token: string): string {
    return crypto.createHash('sha256').update(token).digest('hex');
  }
}
