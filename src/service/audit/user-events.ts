import type { NewAuditEntry } from '../storage/audit-store';
import type { Actor } from './actor';

/**
 * A user's role given or changed (by an admin, or from the provider's groups at a sign-in): written with
 * `stores.audit.append(roleChanged(…))` in the transaction that changes the role. `project`: the project the role
 * is for, null for the whole team; `previous`: the role before (null: none).
 */
export function roleChanged(
  actor: Actor,
  user: string,
  change: { role: string | null; previous: string | null; project: { id: string; key: string } | null; source?: 'admin' | 'groups' },
): NewAuditEntry {
  return {
    kind: 'role.changed',
    actor,
    project: change.project,
    object: { type: 'user', id: user },
    detail: { role: change.role, previous: change.previous, scope: change.project ? 'project' : 'team', source: change.source ?? 'admin' },
  };
}
