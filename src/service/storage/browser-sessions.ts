import crypto from 'node:crypto';
import type { Db } from './database';

const LIFETIME_MS = 30 * 24 * 3600 * 1000;

const hash = (token: string) => crypto.createHash('sha256').update(token).digest('hex');

/** Cookie sessions of the studio in a browser. Only hashes are stored, like API keys. */
export class BrowserSessionStore {
  constructor(private readonly db: Db) {}

  create(now = Date.now()): { token: string; maxAgeSeconds: number } {
    const token = crypto.randomBytes(32).toString('base64url');
    this.db.prepare('DELETE FROM browser_sessions WHERE expires_at < ?').run(new Date(now).toISOString());
    this.db
      .prepare('INSERT INTO browser_sessions (hash, created_at, expires_at) VALUES (?, ?, ?)')
      .run(hash(token), new Date(now).toISOString(), new Date(now + LIFETIME_MS).toISOString());
    return { token, maxAgeSeconds: LIFETIME_MS / 1000 };
  }

  isValid(token: string, now = Date.now()): boolean {
    const row = this.db.prepare('SELECT expires_at FROM browser_sessions WHERE hash = ?').get(hash(token)) as
      | { expires_at: string }
      | undefined;
    return !!row && Date.parse(row.expires_at) > now;
  }
}
