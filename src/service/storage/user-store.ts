import crypto from 'node:crypto';
import type { Sql } from './sql/sql';
import { SqlAuditStore } from './audit-store';
import { currentActor, type Actor } from '../audit/actor';

/** Who the organisation's OpenID Connect provider says signed in (from the verified id token). */
export interface ProviderIdentity {
  issuer: string;
  subject: string;
  /** The handle a new user is named by (preferred_username, else e-mail, else subject); made unique here. */
  preferredName: string;
  displayName: string | null;
  email: string | null;
  groups: readonly string[];
}

export interface UserRecord {
  id: string;
  name: string;
  displayName: string | null;
  email: string | null;
  disabled: boolean;
  /** The provider identity the user is linked to (null for users made only as owners of keys). */
  issuer: string | null;
  subject: string | null;
  /** The provider's groups at the last sign-in. */
  groups: string[];
  createdAt: string;
  lastSignInAt: string | null;
}

/**
 * People as single sign-on knows them: the identity columns of `users` (the key store makes users as owners of
 * keys by name and reads their names; this store links them to a provider's issuer and subject, and keeps their
 * display name, e-mail, groups and disabled flag).
 */
export interface UserStore {
  /** The user linked to this identity, made at its first sign-in; name, e-mail and groups are refreshed. */
  signIn(identity: ProviderIdentity, now?: number): Promise<UserRecord>;
  byId(id: string): Promise<UserRecord | null>;
  /** Every user, in the order they were made. */
  list(): Promise<UserRecord[]>;
  byName(name: string): Promise<UserRecord | null>;
  /** Disables (or enables again) a user by name, recorded in the audit trail with the change; null when there is none. */
  setDisabled(name: string, disabled: boolean, by?: Actor): Promise<UserRecord | null>;
}

interface UserRow {
  id: string;
  name: string;
  display_name: string | null;
  email: string | null;
  disabled: number | string;
  oidc_issuer: string | null;
  oidc_subject: string | null;
  groups_json: string;
  created_at: string;
  last_sign_in_at: string | null;
}

const COLUMNS = 'id, name, display_name, email, disabled, oidc_issuer, oidc_subject, groups_json, created_at, last_sign_in_at';
const MAX_NAME = 100;

export class SqlUserStore implements UserStore {
  constructor(private readonly sql: Sql) {}

  async signIn(identity: ProviderIdentity, now = Date.now()): Promise<UserRecord> {
    const at = new Date(now).toISOString();
    const groups = JSON.stringify(identity.groups);
    const linked = await this.bySubject(identity.issuer, identity.subject);
    if (linked) {
      await this.sql.run('UPDATE users SET display_name = ?, email = ?, groups_json = ?, last_sign_in_at = ? WHERE id = ?', [
        identity.displayName,
        identity.email,
        groups,
        at,
        linked.id,
      ]);
      return (await this.byId(linked.id))!;
    }
    // A new user. Never linked to an existing user by name: a provider account must not take over the user a
    // key was made for just by choosing the same handle, so a taken name gets a number.
    const base = identity.preferredName.trim().slice(0, MAX_NAME - 4) || identity.subject.slice(0, MAX_NAME - 4);
    for (let n = 1; n < 1000; n++) {
      const name = n === 1 ? base : `${base}-${n}`;
      // ON CONFLICT DO NOTHING covers both unique indexes: the name, and the same identity made by another node at once.
      await this.sql.run(
        `INSERT INTO users (id, name, created_at, oidc_issuer, oidc_subject, display_name, email, groups_json, last_sign_in_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
        [crypto.randomUUID(), name, at, identity.issuer, identity.subject, identity.displayName, identity.email, groups, at],
      );
      const made = await this.bySubject(identity.issuer, identity.subject);
      if (made) return made;
    }
    throw new Error(`No free user name for "${base}".`);
  }

  async byId(id: string): Promise<UserRecord | null> {
    const row = await this.sql.get<UserRow>(`SELECT ${COLUMNS} FROM users WHERE id = ?`, [id]);
    return row ? toRecord(row) : null;
  }

  async list(): Promise<UserRecord[]> {
    return (await this.sql.all<UserRow>(`SELECT ${COLUMNS} FROM users ORDER BY created_at, name`)).map(toRecord);
  }

  async byName(name: string): Promise<UserRecord | null> {
    const row = await this.sql.get<UserRow>(`SELECT ${COLUMNS} FROM users WHERE name = ?`, [name]);
    return row ? toRecord(row) : null;
  }

  async setDisabled(name: string, disabled: boolean, by?: Actor): Promise<UserRecord | null> {
    return this.sql.transaction(async (tx) => {
      const changed = await tx.run('UPDATE users SET disabled = ? WHERE name = ? AND disabled <> ?', [disabled ? 1 : 0, name, disabled ? 1 : 0]);
      const row = await tx.get<UserRow>(`SELECT ${COLUMNS} FROM users WHERE name = ?`, [name]);
      if (row && changed.changes > 0) {
        await new SqlAuditStore(tx).append({ kind: disabled ? 'user.disabled' : 'user.enabled', actor: by ?? currentActor(), object: { type: 'user', id: name } });
      }
      return row ? toRecord(row) : null;
    });
  }

  private async bySubject(issuer: string, subject: string): Promise<UserRecord | null> {
    const row = await this.sql.get<UserRow>(`SELECT ${COLUMNS} FROM users WHERE oidc_issuer = ? AND oidc_subject = ?`, [issuer, subject]);
    return row ? toRecord(row) : null;
  }
}

/** The groups kept from the provider (a JSON array of strings; anything else is none). */
export function parseGroups(json: string | null): string[] {
  let groups: unknown;
  try {
    groups = JSON.parse(json ?? '[]');
  } catch {
    groups = [];
  }
  return Array.isArray(groups) ? groups.filter((g): g is string => typeof g === 'string') : [];
}

function toRecord(row: UserRow): UserRecord {
  return {
    id: row.id,
    name: row.name,
    displayName: row.display_name,
    email: row.email,
    disabled: Number(row.disabled) !== 0,
    issuer: row.oidc_issuer,
    subject: row.oidc_subject,
    groups: parseGroups(row.groups_json),
    createdAt: row.created_at,
    lastSignInAt: row.last_sign_in_at,
  };
}
