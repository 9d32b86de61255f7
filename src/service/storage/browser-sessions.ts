import crypto from 'node:crypto';
import type { Db } from './database';

const LIFETIME_MS = 30 * 24 * 3600 * 1000;

const hash = (token: string) => crypto.createHash('sha256').update(token).digest('hex');

/** Cookie sessions of the studio in a browser. Only hashes are stored, like API keys. */
export class BrowserSessionStore {
  constructor(private readonly db: Db) {}

  /** A new session; `keyId` names the API key it was signed in with (null: the one-time link, the owner). */
  create(now = Date.now(), keyId: string | null = null): { token: string; maxAgeSeconds: number } {
    const token = crypto.randomBytes(32).toString('base64url');
    this.db.prepare('DELETE FROM browser_sessions WHERE expires_at < ?').run(new Date(now).toISOString());
    this.db
      .prepare('INSERT INTO browser_sessions (hash, created_at, expires_at, key_id) VALUES (?, ?, ?, ?)')
      .run(hash(token), new Date(now).toISOString(), new Date(now + LIFETIME_MS).toISOString(), keyId);
    return { token, maxAgeSeconds: LIFETIME_MS / 1000 };
  }

  isValid(token: string, now = Date.now()): boolean {
    return this.lookup(token, now) !== null;
  }

  /** The live session's key (null when signed in by the one-time link), or undefined when there is none. */
  keyOf(token: string, now = Date.now()): string | null | undefined {
    return this.lookup(token, now)?.key_id;
  }

  private lookup(token: string, now: number): { key_id: string | null } | null {
    const row = this.db.prepare('SELECT expires_at, key_id FROM browser_sessions WHERE hash = ?').get(hash(token)) as
      | { expires_at: string; key_id: string | null }
      | undefined;
    return row && Date.parse(row.expires_at) > now ? { key_id: row.key_id } : null;
  }
}
