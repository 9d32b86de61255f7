import crypto from 'node:crypto';
import type { Db } from './database';
import { Statements } from './statements';
import { generateApiKey, hashApiKey, keyHint, matchKeyHash } from '../auth/api-keys';
import type { Access } from '../auth/access';

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
}

/** A user named twice, or an empty name. */
export class InvalidUserName extends Error {}

interface KeyRow {
  id: string;
  name: string;
  hash: string;
  scope: 'all' | 'projects';
  user: string | null;
}

/**
 * API keys, stored as SHA-256 hashes only, with the user each belongs to and the projects it is limited to.
 * Read on every request, so a revocation or a change of projects takes effect at once.
 */
export class KeyStore {
  private readonly statements: Statements;

  constructor(private readonly db: Db) {
    this.statements = new Statements(db);
  }

  create(name: string, options: KeyOptions = {}): { key: string; record: ApiKeyRecord } {
    const key = generateApiKey();
    const id = crypto.randomUUID();
    const createdAt = new Date().toISOString();
    const limited = options.projectIds !== undefined;
    this.db.transaction(() => {
      const userId = options.user === undefined ? null : this.ensureUser(options.user);
      this.db
        .prepare('INSERT INTO api_keys (id, hash, hint, name, created_at, user_id, scope) VALUES (?, ?, ?, ?, ?, ?, ?)')
        .run(id, hashApiKey(key).toString('hex'), keyHint(key), name, createdAt, userId, limited ? 'projects' : 'all');
      const insert = this.db.prepare('INSERT OR IGNORE INTO api_key_projects (key_id, project_id, position) VALUES (?, ?, ?)');
      options.projectIds?.forEach((projectId, position) => insert.run(id, projectId, position));
    })();
    return { key, record: this.record(id)! };
  }

  list(): ApiKeyRecord[] {
    const ids = this.db.prepare('SELECT id FROM api_keys ORDER BY created_at, rowid').all() as Array<{ id: string }>;
    return ids.map((row) => this.record(row.id)!);
  }

  users(): Array<{ id: string; name: string; created_at: string; keys: number }> {
    return this.db
      .prepare(
        `SELECT u.id, u.name, u.created_at, COUNT(k.id) AS keys FROM users u
         LEFT JOIN api_keys k ON k.user_id = u.id AND k.revoked_at IS NULL GROUP BY u.id ORDER BY u.created_at, u.name`,
      )
      .all() as Array<{ id: string; name: string; created_at: string; keys: number }>;
  }

  /** Revokes by id, or by a unique id prefix. Returns the record, or null when none matched. */
  revoke(idOrPrefix: string): ApiKeyRecord | null {
    const id = this.resolveId(idOrPrefix);
    if (!id) return null;
    this.db.prepare('UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?').run(new Date().toISOString(), id);
    return this.record(id);
  }

  /** Limits a key to these projects (its default first), or opens it to every project (null). */
  setProjects(idOrPrefix: string, projectIds: readonly string[] | null): ApiKeyRecord | null {
    const id = this.resolveId(idOrPrefix);
    if (!id) return null;
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM api_key_projects WHERE key_id = ?').run(id);
      this.db.prepare('UPDATE api_keys SET scope = ? WHERE id = ?').run(projectIds === null ? 'all' : 'projects', id);
      const insert = this.db.prepare('INSERT OR IGNORE INTO api_key_projects (key_id, project_id, position) VALUES (?, ?, ?)');
      projectIds?.forEach((projectId, position) => insert.run(id, projectId, position));
    })();
    return this.record(id);
  }

  isActive(key: string): boolean {
    return this.access(key) !== null;
  }

  /** What an active key may see, or null for a key that is unknown or revoked. */
  access(key: string): Access | null {
    // Prepared once: this runs on every request.
    const rows = this.statements
      .get(
        `SELECT k.id, k.name, k.hash, k.scope, u.name AS user FROM api_keys k LEFT JOIN users u ON u.id = k.user_id
         WHERE k.revoked_at IS NULL`,
      )
      .all() as KeyRow[];
    const index = matchKeyHash(
      key,
      rows.map((r) => Buffer.from(r.hash, 'hex')),
    );
    if (index < 0) return null;
    return this.accessOfRow(rows[index]!);
  }

  /** The access of a key by id (a studio signed in with it), or null once it is revoked. */
  accessById(id: string): Access | null {
    const row = this.statements
      .get(
        `SELECT k.id, k.name, k.hash, k.scope, u.name AS user FROM api_keys k LEFT JOIN users u ON u.id = k.user_id
         WHERE k.id = ? AND k.revoked_at IS NULL`,
      )
      .get(id) as KeyRow | undefined;
    return row ? this.accessOfRow(row) : null;
  }

  private accessOfRow(row: KeyRow): Access {
    if (row.scope === 'all') return { kind: 'all', keyId: row.id, keyName: row.name, user: row.user };
    const projects = this.statements
      .get('SELECT project_id FROM api_key_projects WHERE key_id = ? ORDER BY position')
      .all(row.id) as Array<{ project_id: string }>;
    return { kind: 'projects', keyId: row.id, keyName: row.name, user: row.user, projectIds: projects.map((p) => p.project_id) };
  }

  private resolveId(idOrPrefix: string): string | null {
    const rows = this.db
      .prepare("SELECT id FROM api_keys WHERE id = ? OR (length(?) >= 4 AND id LIKE ? || '%')")
      .all(idOrPrefix, idOrPrefix, idOrPrefix) as Array<{ id: string }>;
    return rows.length === 1 ? rows[0]!.id : null;
  }

  private ensureUser(name: string): string {
    const trimmed = name.trim();
    if (!trimmed || trimmed.length > 100) throw new InvalidUserName('A user name is 1 to 100 characters.');
    const found = this.db.prepare('SELECT id FROM users WHERE name = ?').get(trimmed) as { id: string } | undefined;
    if (found) return found.id;
    const id = crypto.randomUUID();
    this.db.prepare('INSERT INTO users (id, name, created_at) VALUES (?, ?, ?)').run(id, trimmed, new Date().toISOString());
    return id;
  }

  private record(id: string): ApiKeyRecord | null {
    const row = this.db
      .prepare(
        `SELECT k.id, k.hint, k.name, k.created_at, k.revoked_at, k.scope, u.name AS user
         FROM api_keys k LEFT JOIN users u ON u.id = k.user_id WHERE k.id = ?`,
      )
      .get(id) as (Omit<ApiKeyRecord, 'projects'> & { scope: 'all' | 'projects' }) | undefined;
    if (!row) return null;
    const { scope, ...rest } = row;
    const projects =
      scope === 'all'
        ? null
        : (
            this.db
              .prepare('SELECT p.key FROM api_key_projects kp JOIN projects p ON p.id = kp.project_id WHERE kp.key_id = ? ORDER BY kp.position')
              .all(id) as Array<{ key: string }>
          ).map((p) => p.key);
    return { ...rest, projects };
  }
}
