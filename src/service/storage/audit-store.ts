import crypto from 'node:crypto';
import type { AuditEntry, AuditKind } from '../../shared/schemas/audit';
import type { Actor } from '../audit/actor';
import type { Sql, SqlValue } from './sql/sql';

/** One event as it is recorded: who acted, what happened, to which object of which project. */
export interface NewAuditEntry {
  kind: AuditKind;
  actor: Actor;
  project?: { id: string | null; key: string | null } | null;
  object?: { type: string; id: string } | null;
  detail?: Record<string, unknown>;
  /** When; now unless given (tests). */
  at?: Date;
}

export interface AuditFilter {
  user?: string;
  /** A project's id or key (the key it had when the entry was written). */
  project?: string;
  kind?: AuditKind;
  /** ISO times: at or after `since`, before `until`. */
  since?: string;
  until?: string;
  limit: number;
  offset: number;
}

/**
 * The audit trail (`audit_log`): entries are only ever added. There is no update or delete here, nor anywhere in
 * Takeline; a backup carries the table and a restore brings it back whole. Entries name projects and objects by
 * id and key without foreign keys, so they outlive what they describe.
 */
export interface AuditStore {
  /** Adds an entry: inside the caller's transaction when this store is bound to one. */
  append(entry: NewAuditEntry): Promise<string>;
  /** Entries matching every given filter, newest first, with how many match in all. */
  list(filter: AuditFilter): Promise<{ data: AuditEntry[]; total: number }>;
}

interface Row {
  id: string;
  at: string;
  kind: string;
  actor_kind: string;
  actor_name: string;
  user_name: string | null;
  key_id: string | null;
  key_name: string | null;
  address: string | null;
  project_id: string | null;
  project_key: string | null;
  object_type: string | null;
  object_id: string | null;
  detail_json: string;
}

const COLUMNS = 'id, at, kind, actor_kind, actor_name, user_name, key_id, key_name, address, project_id, project_key, object_type, object_id, detail_json';

export class SqlAuditStore implements AuditStore {
  constructor(private readonly sql: Sql) {}

  async append(entry: NewAuditEntry): Promise<string> {
    const at = entry.at ?? new Date();
    const id = entryId(at.getTime());
    const { actor } = entry;
    await this.sql.run(`INSERT INTO audit_log (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, [
      id,
      at.toISOString(),
      entry.kind,
      actor.kind,
      actor.name,
      actor.user,
      actor.keyId,
      actor.keyName,
      actor.address,
      entry.project?.id ?? null,
      entry.project?.key ?? null,
      entry.object?.type ?? null,
      entry.object?.id ?? null,
      JSON.stringify(entry.detail ?? {}),
    ]);
    return id;
  }

  async list(filter: AuditFilter): Promise<{ data: AuditEntry[]; total: number }> {
    const clauses: string[] = [];
    const params: SqlValue[] = [];
    if (filter.user !== undefined) {
      clauses.push('user_name = ?');
      params.push(filter.user);
    }
    if (filter.project !== undefined) {
      clauses.push('(project_id = ? OR project_key = ?)');
      params.push(filter.project, filter.project);
    }
    if (filter.kind !== undefined) {
      clauses.push('kind = ?');
      params.push(filter.kind);
    }
    // Stored as UTC ISO strings of one length, so they compare as text; the bounds are made the same shape.
    if (filter.since !== undefined) {
      clauses.push('at >= ?');
      params.push(new Date(filter.since).toISOString());
    }
    if (filter.until !== undefined) {
      clauses.push('at < ?');
      params.push(new Date(filter.until).toISOString());
    }
    const where = clauses.length ? `WHERE ${clauses.join(' AND ')}` : '';
    const total = await this.sql.get<{ n: number | string }>(`SELECT COUNT(*) AS n FROM audit_log ${where}`, params);
    const rows = await this.sql.all<Row>(`SELECT ${COLUMNS} FROM audit_log ${where} ORDER BY at DESC, id DESC LIMIT ? OFFSET ?`, [...params, filter.limit, filter.offset]);
    return { data: rows.map(toEntry), total: Number(total?.n ?? 0) };
  }
}

let lastMs = 0;
let counter = 0;

/**
 * Ids that sort in the order entries were made (on one node; entries of the same millisecond on two nodes in
 * either order): the millisecond, a counter within it, then random. `ORDER BY at, id` is thus the order of making
 * on both databases, where SQLite alone has a rowid.
 */
function entryId(ms: number): string {
  counter = ms === lastMs ? counter + 1 : 0;
  lastMs = ms;
  return `${ms.toString(16).padStart(12, '0')}-${counter.toString(16).padStart(4, '0')}-${crypto.randomBytes(8).toString('hex')}`;
}

function toEntry(row: Row): AuditEntry {
  let detail: unknown;
  try {
    detail = JSON.parse(row.detail_json);
  } catch {
    detail = {};
  }
  return {
    id: row.id,
    at: row.at,
    kind: row.kind as AuditKind,
    actor: { kind: row.actor_kind as AuditEntry['actor']['kind'], name: row.actor_name, user: row.user_name, key_id: row.key_id, key_name: row.key_name },
    address: row.address,
    project: row.project_id === null && row.project_key === null ? null : { id: row.project_id, key: row.project_key },
    object: row.object_type === null || row.object_id === null ? null : { type: row.object_type, id: row.object_id },
    detail: detail !== null && typeof detail === 'object' && !Array.isArray(detail) ? (detail as Record<string, unknown>) : {},
  };
}
