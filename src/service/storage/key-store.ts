import crypto from 'node:crypto';
import type { Db } from './database';
import { Statements } from './statements';
import { generateApiKey, hashApiKey, keyHint, matchKeyHash } from '../auth/api-keys';

export interface ApiKeyRecord {
  id: string;
  hint: string;
  name: string;
  created_at: string;
  revoked_at: string | null;
}

/** API keys, stored as SHA-256 hashes only. Read on every request so a revocation takes effect at once. */
export class KeyStore {
  private readonly statements: Statements;

  constructor(private readonly db: Db) {
    this.statements = new Statements(db);
  }

  create(name: string): { key: string; record: ApiKeyRecord } {
    const key = generateApiKey();
    const record: ApiKeyRecord = {
      id: crypto.randomUUID(),
      hint: keyHint(key),
      name,
      created_at: new Date().toISOString(),
      revoked_at: null,
    };
    this.db
      .prepare('INSERT INTO api_keys (id, hash, hint, name, created_at) VALUES (?, ?, ?, ?, ?)')
      .run(record.id, hashApiKey(key).toString('hex'), record.hint, record.name, record.created_at);
    return { key, record };
  }

  list(): ApiKeyRecord[] {
    return this.db
      .prepare('SELECT id, hint, name, created_at, revoked_at FROM api_keys ORDER BY created_at')
      .all() as ApiKeyRecord[];
  }

  /** Revokes by id, or by a unique id prefix. Returns the record, or null when none matched. */
  revoke(idOrPrefix: string): ApiKeyRecord | null {
    const rows = this.db
      .prepare("SELECT id FROM api_keys WHERE id = ? OR (length(?) >= 4 AND id LIKE ? || '%')")
      .all(idOrPrefix, idOrPrefix, idOrPrefix) as Array<{ id: string }>;
    if (rows.length !== 1) return null;
    const id = rows[0]!.id;
    this.db.prepare('UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?').run(new Date().toISOString(), id);
    return this.list().find((r) => r.id === id) ?? null;
  }

  isActive(key: string): boolean {
    // Prepared once: this runs on every request.
    const rows = this.statements.get('SELECT hash FROM api_keys WHERE revoked_at IS NULL').all() as Array<{ hash: string }>;
    return matchKeyHash(key, rows.map((r) => Buffer.from(r.hash, 'hex'))) >= 0;
  }
}
