import type { Sql } from './sql/sql';
import { isRole, type RoleGrant } from '../auth/roles';

/**
 * The roles admins gave users (`user_roles`): one for the whole team and one per project at most. Requests
 * read them in the same query as the key or session they come with (key-store.ts, browser-sessions.ts), so a
 * change holds on the next request on every API node.
 */
export interface RoleStore {
  /** Every user's roles (users with none are absent), the team's first, then by project id. */
  all(): Promise<Map<string, RoleGrant[]>>;
  of(userId: string): Promise<RoleGrant[]>;
  /**
   * Gives one role (replacing the user's role there), or takes it away (null). Taking the team role away keeps
   * a 'none' row: the user's roles are managed from then on (see migration 28).
   */
  set(userId: string, projectId: string | null, role: RoleGrant['role'] | null, now?: number): Promise<void>;
  /** Replaces all of a user's roles at once. */
  replace(userId: string, grants: readonly RoleGrant[], now?: number): Promise<void>;
}

interface RoleRow {
  user_id: string;
  project_id: string | null;
  role: string;
}

const ORDER = 'ORDER BY user_id, CASE WHEN project_id IS NULL THEN 0 ELSE 1 END, project_id';

export class SqlRoleStore implements RoleStore {
  constructor(private readonly sql: Sql) {}

  async all(): Promise<Map<string, RoleGrant[]>> {
    const byUser = new Map<string, RoleGrant[]>();
    for (const row of await this.sql.all<RoleRow>(`SELECT user_id, project_id, role FROM user_roles ${ORDER}`)) {
      const grant = toGrant(row);
      if (!grant) continue;
      if (!byUser.has(row.user_id)) byUser.set(row.user_id, []);
      byUser.get(row.user_id)!.push(grant);
    }
    return byUser;
  }

  async of(userId: string): Promise<RoleGrant[]> {
    const rows = await this.sql.all<RoleRow>(`SELECT user_id, project_id, role FROM user_roles WHERE user_id = ? ${ORDER}`, [userId]);
    return rows.flatMap((row) => toGrant(row) ?? []);
  }

  async set(userId: string, projectId: string | null, role: RoleGrant['role'] | null, now = Date.now()): Promise<void> {
    await this.sql.transaction(async (tx) => {
      await deleteOne(tx, userId, projectId);
      if (role !== null) await insert(tx, userId, projectId, role, now);
      else if (projectId === null) await insert(tx, userId, null, 'none', now);
    });
  }

  async replace(userId: string, grants: readonly RoleGrant[], now = Date.now()): Promise<void> {
    const seen = new Set<string | null>();
    for (const grant of grants) {
      if (seen.has(grant.projectId)) throw new RangeError(`A user holds one role per project: ${grant.projectId ?? 'the team'} is named twice.`);
      seen.add(grant.projectId);
    }
    await this.sql.transaction(async (tx) => {
      await tx.run('DELETE FROM user_roles WHERE user_id = ?', [userId]);
      if (!grants.some((g) => g.projectId === null)) await insert(tx, userId, null, 'none', now);
      for (const grant of grants) await insert(tx, userId, grant.projectId, grant.role, now);
    });
  }
}

function deleteOne(sql: Sql, userId: string, projectId: string | null): Promise<unknown> {
  return projectId === null
    ? sql.run('DELETE FROM user_roles WHERE user_id = ? AND project_id IS NULL', [userId])
    : sql.run('DELETE FROM user_roles WHERE user_id = ? AND project_id = ?', [userId, projectId]);
}

function insert(sql: Sql, userId: string, projectId: string | null, role: RoleGrant['role'] | 'none', now: number): Promise<unknown> {
  return sql.run('INSERT INTO user_roles (user_id, project_id, role, granted_at) VALUES (?, ?, ?, ?)', [userId, projectId, role, new Date(now).toISOString()]);
}

/** A row's grant; 'none', or a role this version does not know (a newer one wrote it), is no role here. */
export function toGrant(row: { project_id: string | null; role: string | null }): RoleGrant | null {
  return isRole(row.role) ? { projectId: row.project_id, role: row.role } : null;
}
