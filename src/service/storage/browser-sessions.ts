import crypto from 'node:crypto';
import type { Sql } from './sql/sql';
import { pointReads, type FreshBatch } from './fresh-batch';
import { perCount } from './sql/placeholders';

const LIFETIME_MS = 30 * 24 * 3600 * 1000;

const hash = (token: string) => crypto.createHash('sha256').update(token).digest('hex');

/** Cookie sessions of the studio in a browser. Only hashes are stored, like API keys. */
export interface BrowserSessionStore {
  /** A new session; `keyId` names the API key it was signed in with (null: the one-time link, the owner). */
  create(now?: number, keyId?: string | null): Promise<{ token: string; maxAgeSeconds: number }>;
  isValid(token: string, now?: number): Promise<boolean>;
  /** The live session's key (null when signed in by the one-time link), or undefined when there is none. */
  keyOf(token: string, now?: number): Promise<string | null | undefined>;
}

interface SessionRow {
  hash: string;
  expires_at: string;
  key_id: string | null;
}

const SESSIONS = perCount((hashes) => `SELECT hash, expires_at, key_id FROM browser_sessions WHERE hash IN (${hashes})`);

export class SqlBrowserSessionStore implements BrowserSessionStore {
  /** Read on every request of a signed-in studio, so many at once are one query. */
  private readonly byHash: FreshBatch<string, SessionRow | null>;

  constructor(private readonly sql: Sql) {
    this.byHash = pointReads(sql, async (hashes: string[]) => new Map((await sql.all<SessionRow>(SESSIONS(hashes.length), hashes)).map((r) => [r.hash, r])), null);
  }

  async create(now = Date.now(), keyId: string | null = null): Promise<{ token: string; maxAgeSeconds: number }> {
    const token = crypto.randomBytes(32).toString('base64url');
    await this.sql.run('DELETE FROM browser_sessions WHERE expires_at < ?', [new Date(now).toISOString()]);
    await this.sql.run('INSERT INTO browser_sessions (hash, created_at, expires_at, key_id) VALUES (?, ?, ?, ?)', [
      hash(token),
      new Date(now).toISOString(),
      new Date(now + LIFETIME_MS).toISOString(),
      keyId,
    ]);
    return { token, maxAgeSeconds: LIFETIME_MS / 1000 };
  }

  async isValid(token: string, now = Date.now()): Promise<boolean> {
    return (await this.lookup(token, now)) !== null;
  }

  async keyOf(token: string, now = Date.now()): Promise<string | null | undefined> {
    return (await this.lookup(token, now))?.key_id;
  }

  private async lookup(token: string, now: number): Promise<{ key_id: string | null } | null> {
    const row = await this.byHash.get(hash(token));
    return row && Date.parse(row.expires_at) > now ? { key_id: row.key_id } : null;
  }
}
