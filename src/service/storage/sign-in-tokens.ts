import crypto from 'node:crypto';
import type { Sql } from './sql/sql';

const TOKEN_TTL_MS = 24 * 3600 * 1000;

/**
 * One-time sign-in links for the studio in a browser, like a notebook server's token link: the token is
 * good once, then the browser holds an HttpOnly cookie instead. Only hashes are stored, in the database,
 * so `npm run keys -- signin` can issue a fresh link to a running service, and any API node can take it
 * (a link previewer or a second browser that used up the first one must not lock the user out).
 */
export interface SignInTokens {
  issue(now?: number): Promise<string>;
  /** True once for a live token; false for anything else, and for the same token again. */
  consume(token: unknown, now?: number): Promise<boolean>;
}

export class SqlSignInTokens implements SignInTokens {
  constructor(private readonly sql: Sql) {}

  async issue(now = Date.now()): Promise<string> {
    await this.sql.run('DELETE FROM sign_in_tokens WHERE expires_at <= ?', [new Date(now).toISOString()]);
    const token = crypto.randomBytes(24).toString('base64url');
    await this.sql.run('INSERT INTO sign_in_tokens (hash, expires_at) VALUES (?, ?)', [hash(token), new Date(now + TOKEN_TTL_MS).toISOString()]);
    return token;
  }

  async consume(token: unknown, now = Date.now()): Promise<boolean> {
    if (typeof token !== 'string' || token.length === 0 || token.length > 200) return false;
    // DELETE … RETURNING: two requests racing with the same link cannot both win.
    const row = await this.sql.get<{ expires_at: string }>('DELETE FROM sign_in_tokens WHERE hash = ? RETURNING expires_at', [hash(token)]);
    return row !== undefined && Date.parse(row.expires_at) > now;
  }
}

function hash(token: string): string {
  return crypto.createHash('sha256').update(token).digest('hex');
}
