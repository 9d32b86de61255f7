import crypto from 'node:crypto';
import type { Sql } from './sql/sql';
import { pointReads, type FreshBatch } from './fresh-batch';
import { perCount } from './sql/placeholders';

const LIFETIME_MS = 30 * 24 * 3600 * 1000;

const hash = (token: string) => crypto.createHash('sha256').update(token).digest('hex');

/** Who a live studio session was signed in as. */
export interface BrowserSession {
  /** The API key it was signed in with; null for the one-time link (the owner) and for single sign-on. */
  keyId: string | null;
  /** The user single sign-on signed in, with what every request needs to know of them; null otherwise. */
  user: { id: string; name: string; disabled: boolean } | null;
}

/** A session with the name its user's edits are attributed to (read with it, at no extra cost). */
export interface AttributedSession extends BrowserSession {
  /** The single sign-on user's display name, when the provider gave one. */
  userDisplayName: string | null;
}

/** Cookie sessions of the studio in a browser. Only hashes are stored, like API keys. */
export interface BrowserSessionStore {
  /**
   * A new session; `keyId` names the API key it was signed in with (null: the one-time link, the owner), `userId`
   * the user single sign-on signed in.
   */
  create(now?: number, keyId?: string | null, userId?: string | null): Promise<{ token: string; maxAgeSeconds: number }>;
  isValid(token: string, now?: number): Promise<boolean>;
  /** The live session's key (null when signed in by the one-time link), or undefined when there is none. */
  keyOf(token: string, now?: number): Promise<string | null | undefined>;
  /** The live session, or null when there is none. */
  sessionOf(token: string, now?: number): Promise<BrowserSession | null>;
  /** `sessionOf` with the user's display name: what a request authenticated by the session acts as. */
  attributedSessionOf(token: string, now?: number): Promise<AttributedSession | null>;
  /** Ends the session (signing out); nothing when there is none. */
  remove(token: string): Promise<void>;
}

interface SessionRow {
  hash: string;
  expires_at: string;
  key_id: string | null;
  user_id: string | null;
  user_name: string | null;
  user_display_name: string | null;
  user_disabled: number | string | null;
}

const SESSIONS = perCount(
  (hashes) => `SELECT s.hash, s.expires_at, s.key_id, s.user_id, u.name AS user_name, u.display_name AS user_display_name, u.disabled AS user_disabled
    FROM browser_sessions s LEFT JOIN users u ON u.id = s.user_id WHERE s.hash IN (${hashes})`,
);

export class SqlBrowserSessionStore implements BrowserSessionStore {
  /** Read on every request of a signed-in studio, so many at once are one query. */
  private readonly byHash: FreshBatch<string, SessionRow | null>;

  constructor(private readonly sql: Sql) {
    this.byHash = pointReads(sql, async (hashes: string[]) => new Map((await sql.all<SessionRow>(SESSIONS(hashes.length), hashes)).map((r) => [r.hash, r])), null);
  }

  async create(now = Date.now(), keyId: string | null = null, userId: string | null = null): Promise<{ token: string; maxAgeSeconds: number }> {
    const token = crypto.randomBytes(32).toString('base64url');
    await this.sql.run('DELETE FROM browser_sessions WHERE expires_at < ?', [new Date(now).toISOString()]);
    await this.sql.run('INSERT INTO browser_sessions (hash, created_at, expires_at, key_id, user_id) VALUES (?, ?, ?, ?, ?)', [
      hash(token),
      new Date(now).toISOString(),
      new Date(now + LIFETIME_MS).toISOString(),
      keyId,
      userId,
    ]);
    return { token, maxAgeSeconds: LIFETIME_MS / 1000 };
  }

  async isValid(token: string, now = Date.now()): Promise<boolean> {
    return (await this.lookup(token, now)) !== null;
  }

  async keyOf(token: string, now = Date.now()): Promise<string | null | undefined> {
    return (await this.lookup(token, now))?.key_id;
  }

  async sessionOf(token: string, now = Date.now()): Promise<BrowserSession | null> {
    const session = await this.attributedSessionOf(token, now);
    return session && { keyId: session.keyId, user: session.user };
  }

  async attributedSessionOf(token: string, now = Date.now()): Promise<AttributedSession | null> {
    const row = await this.lookup(token, now);
    if (!row) return null;
    // A session whose user is gone is no session.
    if (row.user_id !== null && row.user_name === null) return null;
    return {
      keyId: row.key_id,
      user: row.user_id === null ? null : { id: row.user_id, name: row.user_name!, disabled: Number(row.user_disabled) !== 0 },
      userDisplayName: row.user_display_name,
    };
  }

  async remove(token: string): Promise<void> {
    await this.sql.run('DELETE FROM browser_sessions WHERE hash = ?', [hash(token)]);
  }

  private async lookup(token: string, now: number): Promise<SessionRow | null> {
    const row = await this.byHash.get(hash(token));
    return row && Date.parse(row.expires_at) > now ? row : null;
  }
}
