import crypto from 'node:crypto';
import type { Db } from '../storage/database';

const TOKEN_TTL_MS = 24 * 3600 * 1000;

/**
 * One-time sign-in links for the studio in a browser, like a notebook server's token link: the token is
 * good once, then the browser holds an HttpOnly cookie instead. Only hashes are stored, in the database,
 * so `npm run keys -- signin` can issue a fresh link to a running service (a link previewer or a second
 * browser that used up the first one must not lock the user out until a restart).
 */
export class SignInTokens {
  constructor(private readonly db: Db) {}

  issue(now = Date.now()): string {
    this.db.prepare('DELETE FROM sign_in_tokens WHERE expires_at <= ?').run(new Date(now).toISOString());
    const token = crypto.randomBytes(24).toString('base64url');
    this.db.prepare('INSERT INTO sign_in_tokens (hash, expires_at) VALUES (?, ?)').run(hash(token), new Date(now + TOKEN_TTL_MS).toISOString());
    return token;
  }

  consume(token: unknown, now = Date.now()): boolean {
    if (typeof token !== 'string' || token.length === 0 || token.length > 200) return false;
    // DELETE … RETURNING: two requests racing with the same link cannot both win.
    const row = this.db.prepare('DELETE FROM sign_in_tokens WHERE hash = ? RETURNING expires_at').get(hash(token)) as { expires_at: string } | undefined;
    return row !== undefined && Date.parse(row.expires_at) > now;
  }
}

function hash(token: string): string {
  return crypto.createHash('sha256').update(token).digest('hex');
}
