import crypto from 'node:crypto';
import type { Sql } from './sql/sql';
import { pointReads, type FreshBatch } from './fresh-batch';
import { perCount } from './sql/placeholders';
import type { RoleGrant } from '../auth/roles';
import { toGrant } from './role-store';
import { parseGroups } from './user-store';

const LIFETIME_MS = 30 * 24 * 3600 * 1000;

const hash = (token: string) => crypto.createHash('sha256').update(token).digest('hex');

/** Who a live studio session was signed in as. */
export interface BrowserSession {
  /** The API key it was signed in with; null for the one-time link (the owner) and for single sign-on. */
  keyId: string | null;
  /** The user single sign-on signed in, with what every request needs to know of them; null otherwise. */
  user: { id: string; name: string; disabled: boolean } | null;
}

/** A session with what its user may do: the roles an admin gave them and the provider's groups at their last sign-in. */
export interface BrowserSessionWithRoles {
  session: BrowserSession;
  roles: RoleGrant[];
  groups: string[];
  /** The single sign-on user's display name, when the provider gave one (what their edits are attributed to). */
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
  /** The same, with its user's roles and groups (read in the same query). */
  sessionWithRoles(token: string, now?: number): Promise<BrowserSessionWithRoles | null>;
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
  user_groups: string | null;
  role_project: string | null;
  role: string | null;
}

/** A session's row once per role its user holds (once, with none, if none): roles come in the same round trip. */
interface SessionRows {
  row: SessionRow;
  roles: RoleGrant[];
}

const SESSIONS = perCount(
  (hashes) => `SELECT s.hash, s.expires_at, s.key_id, s.user_id, u.name AS user_name, u.display_name AS user_display_name, u.disabled AS user_disabled, u.groups_json AS user_groups,
    r.project_id AS role_project, r.role
    FROM browser_sessions s LEFT JOIN users u ON u.id = s.user_id LEFT JOIN user_roles r ON r.user_id = s.user_id WHERE s.hash IN (${hashes})`,
);

function gathered(rows: readonly SessionRow[]): Map<string, SessionRows> {
  const byHash = new Map<string, SessionRows>();
  for (const row of rows) {
    if (!byHash.has(row.hash)) byHash.set(row.hash, { row, roles: [] });
    const grant = toGrant({ project_id: row.role_project, role: row.role });
    if (grant) byHash.get(row.hash)!.roles.push(grant);
  }
  return byHash;
}

export class SqlBrowserSessionStore implements BrowserSessionStore {
  /** Read on every request of a signed-in studio, so many at once are one query. */
  private readonly byHash: FreshBatch<string, SessionRows | null>;

  constructor(private readonly sql: Sql) {
    this.byHash = pointReads(sql, async (hashes: string[]) => gathered(await sql.all<SessionRow>(SESSIONS(hashes.length), hashes)), null);
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
    return (await this.lookup(token, now))?.row.key_id;
  }

  async sessionOf(token: string, now = Date.now()): Promise<BrowserSession | null> {
    return (await this.sessionWithRoles(token, now))?.session ?? null;
  }

  async sessionWithRoles(token: string, now = Date.now()): Promise<BrowserSessionWithRoles | null> {
    const found = await this.lookup(token, now);
    if (!found) return null;
    const { row, roles } = found;
    // A session whose user is gone is no session.
    if (row.user_id !== null && row.user_name === null) return null;
    return {
      session: { keyId: row.key_id, user: row.user_id === null ? null : { id: row.user_id, name: row.user_name!, disabled: Number(row.user_disabled) !== 0 } },
      roles,
      groups: parseGroups(row.user_groups),
      userDisplayName: row.user_display_name,
    };
  }

  async remove(token: string): Promise<void> {
    await this.sql.run('DELETE FROM browser_sessions WHERE hash = ?', [hash(token)]);
  }

  private async lookup(token: string, now: number): Promise<SessionRows | null> {
    const found = await this.byHash.get(hash(token));
    return found && Date.parse(found.row.expires_at) > now ? found : null;
  }
}
