import crypto from 'node:crypto';
import type { Sql } from './sql/sql';
import { generateApiKey, hashApiKey, keyHint } from '../auth/api-keys';
import { withGrants, type Access } from '../auth/access';
import { grantsOf, NO_GRANTS, type RoleMap } from '../auth/roles';
import { toGrant } from './role-store';
import { parseGroups } from './user-store';
import { pointReads, type FreshBatch } from './fresh-batch';
import { perCount } from './sql/placeholders';
import { SqlAuditStore } from './audit-store';
import { currentActor, type Actor } from '../audit/actor';

export interface ApiKeyRecord {
  id: string;
  hint: string;
  name: string;
  created_at: string;
  revoked_at: string | null;
  /** The user the key belongs to (null for keys made before users existed, which belong to the owner). */
  user: string | null;
  /** null: every project; otherwise the keys of the projects it is limited to, its default first. */
  projects: string[] | null;
}

export interface KeyOptions {
  /** The user the key belongs to, made when it is new. */
  user?: string;
  /** Project ids the key is limited to, its default first; absent: every project. */
  projectIds?: readonly string[];
  /** Who makes it, for the audit trail (default: whoever the work in progress acts for). */
  by?: Actor;
}

/** A user named twice, or an empty name. */
export class InvalidUserName extends Error {}

/**
 * API keys, stored as SHA-256 hashes only, with the user each belongs to and the projects it is limited to
 * (`api_keys`, `users`, `api_key_projects`). Read on every request, so a revocation or a change of projects
 * takes effect at once, on every API node.
 */
export interface KeyStore {
  /** Throws InvalidUserName for an empty or over-long user name. */
  create(name: string, options?: KeyOptions): Promise<{ key: string; record: ApiKeyRecord }>;
  list(): Promise<ApiKeyRecord[]>;
  users(): Promise<Array<{ id: string; name: string; created_at: string; keys: number }>>;
  /** Revokes by id, or by a unique id prefix. Returns the record, or null when none matched. */
  revoke(idOrPrefix: string, by?: Actor): Promise<ApiKeyRecord | null>;
  /** Limits a key to these projects (its default first), or opens it to every project (null). */
  setProjects(idOrPrefix: string, projectIds: readonly string[] | null, by?: Actor): Promise<ApiKeyRecord | null>;
  isActive(key: string): Promise<boolean>;
  /** What an active key may see, or null for a key that is unknown or revoked. */
  access(key: string): Promise<Access | null>;
  /** The access of a key by id (a studio signed in with it), or null once it is revoked. */
  accessById(id: string): Promise<Access | null>;
}

/**
 * Active keys' access by their hashes or ids, with their user's roles in the same round trip: a row per project a
 * key is limited to and role its user holds (one row, with neither, if none).
 */
const accessBy = (column: 'hash' | 'id') =>
  perCount(
    (values) => `SELECT k.id, k.hash, k.name, k.scope, u.name AS user_name, u.display_name AS user_display_name, u.oidc_subject AS user_subject, u.groups_json AS user_groups,
       u.disabled AS user_disabled, p.project_id, r.project_id AS role_project, r.role
       FROM api_keys k LEFT JOIN users u ON u.id = k.user_id
       LEFT JOIN api_key_projects p ON p.key_id = k.id AND k.scope = 'projects'
       LEFT JOIN user_roles r ON r.user_id = k.user_id
       WHERE k.${column} IN (${values}) AND k.revoked_at IS NULL ORDER BY p.position`,
  );
const ACCESS_BY = { hash: accessBy('hash'), id: accessBy('id') };

interface AccessRow {
  id: string;
  hash: string;
  name: string;
  scope: 'all' | 'projects';
  user_name: string | null;
  user_display_name: string | null;
  user_subject: string | null;
  user_groups: string | null;
  user_disabled: number | string | null;
  project_id: string | null;
  role_project: string | null;
  role: string | null;
}

export class SqlKeyStore implements KeyStore {
  /** Read on every request with a stored key (by its hash) or a studio signed in with one (by id), so many at once are one query. */
  private readonly byHash: FreshBatch<string, Access | null>;
  private readonly byId: FreshBatch<string, Access | null>;

  /** @param roleMap the provider's groups that give a role for the whole team (TAKELINE_OIDC_ROLE_MAP) */
  constructor(
    private readonly sql: Sql,
    private readonly roleMap: RoleMap = new Map(),
  ) {
    this.byHash = pointReads(sql, (hashes: string[]) => this.accessOf('hash', hashes), null);
    this.byId = pointReads(sql, (ids: string[]) => this.accessOf('id', ids), null);
  }

  async create(name: string, options: KeyOptions = {}): Promise<{ key: string; record: ApiKeyRecord }> {
    const key = generateApiKey();
    const id = crypto.randomUUID();
    const createdAt = new Date().toISOString();
    const limited = options.projectIds !== undefined;
    await this.sql.transaction(async (tx) => {
      const keys = new SqlKeyStore(tx);
      const userId = options.user === undefined ? null : await keys.ensureUser(options.user);
      await tx.run('INSERT INTO api_keys (id, hash, hint, name, created_at, user_id, scope) VALUES (?, ?, ?, ?, ?, ?, ?)', [
        id,
        hashApiKey(key).toString('hex'),
        keyHint(key),
        name,
        createdAt,
        userId,
        limited ? 'projects' : 'all',
      ]);
      await keys.insertProjects(id, options.projectIds ?? []);
      await keys.audit(tx, 'key.created', id, options.by, { projects: options.projectIds ?? null });
    });
    return { key, record: (await this.record(id))! };
  }

  async list(): Promise<ApiKeyRecord[]> {
    // Keys made in the same millisecond keep their order of making where the database records one.
    const ids = await this.sql.all<{ id: string }>(`SELECT id FROM api_keys ORDER BY created_at, ${this.sql.dialect === 'sqlite' ? 'rowid' : 'id'}`);
    const records: ApiKeyRecord[] = [];
    for (const row of ids) records.push((await this.record(row.id))!);
    return records;
  }

  users(): Promise<Array<{ id: string; name: string; created_at: string; keys: number }>> {
    return this.sql.all(
      `SELECT u.id, u.name, u.created_at, COUNT(k.id) AS keys FROM users u
       LEFT JOIN api_keys k ON k.user_id = u.id AND k.revoked_at IS NULL GROUP BY u.id, u.name, u.created_at ORDER BY u.created_at, u.name`,
    );
  }

  async revoke(idOrPrefix: string, by?: Actor): Promise<ApiKeyRecord | null> {
    const id = await this.resolveId(idOrPrefix);
    if (!id) return null;
    await this.sql.transaction(async (tx) => {
      // Revoking a revoked key again changes nothing and records nothing.
      const revoked = await tx.run('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL', [new Date().toISOString(), id]);
      if (revoked.changes > 0) await new SqlKeyStore(tx).audit(tx, 'key.revoked', id, by);
    });
    return this.record(id);
  }

  async setProjects(idOrPrefix: string, projectIds: readonly string[] | null, by?: Actor): Promise<ApiKeyRecord | null> {
    const id = await this.resolveId(idOrPrefix);
    if (!id) return null;
    await this.sql.transaction(async (tx) => {
      await tx.run('DELETE FROM api_key_projects WHERE key_id = ?', [id]);
      await tx.run('UPDATE api_keys SET scope = ? WHERE id = ?', [projectIds === null ? 'all' : 'projects', id]);
      const keys = new SqlKeyStore(tx);
      await keys.insertProjects(id, projectIds ?? []);
      await keys.audit(tx, 'key.projects_changed', id, by, { projects: projectIds });
    });
    return this.record(id);
  }

  async isActive(key: string): Promise<boolean> {
    return (await this.access(key)) !== null;
  }

  access(key: string): Promise<Access | null> {
    // By the key's SHA-256 (a unique index), not every active key on every request: a team has many. The index
    // compares hashes, never the key, so its timing tells nothing usable about any key.
    return this.byHash.get(hashApiKey(key).toString('hex'));
  }

  accessById(id: string): Promise<Access | null> {
    return this.byId.get(id);
  }

  /** Active keys' access in one round trip, by their hashes or ids. */
  private async accessOf(column: 'hash' | 'id', values: string[]): Promise<Map<string, Access>> {
    const rows = await this.sql.all<AccessRow>(ACCESS_BY[column](values.length), values);
    const byKey = new Map<string, AccessRow[]>();
    for (const row of rows) {
      if (!byKey.has(row[column])) byKey.set(row[column], []);
      byKey.get(row[column])!.push(row);
    }
    return new Map([...byKey].map(([value, own]) => [value, toAccess(own, this.roleMap)]));
  }

  /** The projects in order; a project named twice keeps its first place. */
  private async insertProjects(keyId: string, projectIds: readonly string[]): Promise<void> {
    for (const [position, projectId] of projectIds.entries()) {
      await this.sql.run('INSERT INTO api_key_projects (key_id, project_id, position) VALUES (?, ?, ?) ON CONFLICT DO NOTHING', [keyId, projectId, position]);
    }
  }

  /** The key's audit entry, in the transaction that changed it: the key's user, name and hint, never the key. */
  private async audit(tx: Sql, kind: 'key.created' | 'key.revoked' | 'key.projects_changed', id: string, by: Actor | undefined, detail: Record<string, unknown> = {}): Promise<void> {
    const key = (await this.record(id))!;
    await new SqlAuditStore(tx).append({ kind, actor: by ?? currentActor(), object: { type: 'key', id }, detail: { name: key.name, hint: key.hint, user: key.user, ...detail } });
  }

  private async resolveId(idOrPrefix: string): Promise<string | null> {
    // A prefix is at least four characters of an id (hex and dashes): never a pattern that matches every key.
    const prefix = /^[0-9a-f-]{4,}$/i.test(idOrPrefix) ? `${idOrPrefix.toLowerCase()}%` : null;
    const rows = await this.sql.all<{ id: string }>('SELECT id FROM api_keys WHERE id = ? OR id LIKE ?', [idOrPrefix, prefix]);
    return rows.length === 1 ? rows[0]!.id : null;
  }

  private async ensureUser(name: string): Promise<string> {
    const trimmed = name.trim();
    if (!trimmed || trimmed.length > 100) throw new InvalidUserName('A user name is 1 to 100 characters.');
    const id = crypto.randomUUID();
    // Two nodes naming the same new user at once: one row, whichever came first.
    await this.sql.run('INSERT INTO users (id, name, created_at) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING', [id, trimmed, new Date().toISOString()]);
    return (await this.sql.get<{ id: string }>('SELECT id FROM users WHERE name = ?', [trimmed]))!.id;
  }

  private async record(id: string): Promise<ApiKeyRecord | null> {
    const row = await this.sql.get<Omit<ApiKeyRecord, 'projects' | 'user'> & { scope: 'all' | 'projects'; user_name: string | null }>(
      `SELECT k.id, k.hint, k.name, k.created_at, k.revoked_at, k.scope, u.name AS user_name
       FROM api_keys k LEFT JOIN users u ON u.id = k.user_id WHERE k.id = ?`,
      [id],
    );
    if (!row) return null;
    const { scope, user_name, ...rest } = row;
    const projects =
      scope === 'all'
        ? null
        : (await this.sql.all<{ key: string }>('SELECT p.key FROM api_key_projects kp JOIN projects p ON p.id = kp.project_id WHERE kp.key_id = ? ORDER BY kp.position', [id])).map(
            (p) => p.key,
          );
    return { ...rest, user: user_name, projects };
  }
}

/**
 * One key's access from its rows (in project order). A key acts as its user with the user's roles, within the
 * key's projects. A user made only to own keys (never signed in by the provider) who was never given a role keeps
 * the powers keys had before roles (admin within the key's projects) until an admin manages their roles; a disabled
 * user's keys may do nothing.
 */
function toAccess(rows: readonly AccessRow[], roleMap: RoleMap): Access {
  const row = rows[0]!;
  const projectIds = [...new Set(rows.flatMap((r) => (r.project_id === null ? [] : [r.project_id])))];
  // The display name only where the provider gave one (a key's user made by `keys create` has none).
  const who = { keyId: row.id, keyName: row.name, user: row.user_name, ...(row.user_display_name ? { userDisplayName: row.user_display_name } : {}) };
  const base: Access = row.scope === 'all' ? { kind: 'all', ...who } : { kind: 'projects', ...who, projectIds };
  if (row.user_name === null) return base;
  const given = rows.flatMap((r) => toGrant({ project_id: r.role_project, role: r.role }) ?? []);
  const disabled = Number(row.user_disabled) !== 0;
  const managed = rows.some((r) => r.role !== null);
  if (!managed && row.user_subject === null && !disabled) return base;
  return withGrants(base, disabled ? NO_GRANTS : grantsOf(given, parseGroups(row.user_groups), roleMap));
}
