import type { Sql } from './sql/sql';
import { isRole, type RoleGrant } from '../auth/roles';
import { SqlAuditStore } from './audit-store';
import { currentActor, type Actor } from '../audit/actor';
import { roleChanged } from '../audit/user-events';

/** What the audit trail names in a role change: the user by name, projects by key, who did it (default: the request's caller). */
export interface RoleChangeContext {
  user: string;
  projectKeys: ReadonlyMap<string, string>;
  by?: Actor;
}

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
  set(userId: string, projectId: string | null, role: RoleGrant['role'] | null, now?: number, audit?: RoleChangeContext): Promise<void>;
  /** Replaces all of a user's roles at once. Each role that changed is recorded in the audit trail with the change. */
  replace(userId: string, grants: readonly RoleGrant[], now?: number, audit?: RoleChangeContext): Promise<void>;
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

  async set(userId: string, projectId: string | null, role: RoleGrant['role'] | null, now = Date.now(), audit?: RoleChangeContext): Promise<void> {
    await this.sql.transaction(async (tx) => {
      const before = await grantsIn(tx, userId);
      await deleteOne(tx, userId, projectId);
      if (role !== null) await insert(tx, userId, projectId, role, now);
      else if (projectId === null) await insert(tx, userId, null, 'none', now);
      if (audit) await recordChanges(tx, before, await grantsIn(tx, userId), audit);
    });
  }

  async replace(userId: string, grants: readonly RoleGrant[], now = Date.now(), audit?: RoleChangeContext): Promise<void> {
    const seen = new Set<string | null>();
    for (const grant of grants) {
      if (seen.has(grant.projectId)) throw new RangeError(`A user holds one role per project: ${grant.projectId ?? 'the team'} is named twice.`);
      seen.add(grant.projectId);
    }
    await this.sql.transaction(async (tx) => {
      const before = await grantsIn(tx, userId);
      await tx.run('DELETE FROM user_roles WHERE user_id = ?', [userId]);
      if (!grants.some((g) => g.projectId === null)) await insert(tx, userId, null, 'none', now);
      for (const grant of grants) await insert(tx, userId, grant.projectId, grant.role, now);
      if (audit) await recordChanges(tx, before, await grantsIn(tx, userId), audit);
    });
  }
}

async function grantsIn(sql: Sql, userId: string): Promise<Map<string | null, string>> {
  const rows = await sql.all<RoleRow>('SELECT user_id, project_id, role FROM user_roles WHERE user_id = ?', [userId]);
  return new Map(rows.flatMap((r) => (toGrant(r) ? [[r.project_id, r.role] as const] : [])));
}

/** One audit entry per role that differs between before and after (the team's, then each project's). */
async function recordChanges(sql: Sql, before: Map<string | null, string>, after: Map<string | null, string>, audit: RoleChangeContext): Promise<void> {
  const scopes = [...new Set([...before.keys(), ...after.keys()])].sort((a, b) => (a === null ? -1 : b === null ? 1 : a.localeCompare(b)));
  for (const projectId of scopes) {
    const previous = before.get(projectId) ?? null;
    const role = after.get(projectId) ?? null;
    if (previous === role) continue;
    const project = projectId === null ? null : { id: projectId, key: audit.projectKeys.get(projectId) ?? projectId };
    await new SqlAuditStore(sql).append(roleChanged(audit.by ?? currentActor(), audit.user, { role, previous, project }));
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
