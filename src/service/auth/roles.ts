/**
 * Roles: what a person may do, for the whole team or on one project. Each includes the one before it:
 * a viewer reads, plays, exports and leaves notes; an editor also corrects transcripts, edits and revoices dubs,
 * sets timebases, uploads and transcribes; an admin also manages projects, users and models.
 */
export const ROLES = ['viewer', 'editor', 'admin'] as const;
export type Role = (typeof ROLES)[number];

const RANK: Record<Role, number> = { viewer: 1, editor: 2, admin: 3 };

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

/** Whether `held` (null: no role) is at least `needed`. */
export function allows(held: Role | null | undefined, needed: Role): boolean {
  return held != null && RANK[held] >= RANK[needed];
}

/** The higher of two roles (null: none). */
export function higher(a: Role | null | undefined, b: Role | null | undefined): Role | null {
  if (a == null) return b ?? null;
  if (b == null) return a;
  return RANK[a] >= RANK[b] ? a : b;
}

/** What a user holds: a role for the whole team (or none) and roles on single projects (by project id). */
export interface Grants {
  readonly team: Role | null;
  readonly projects: Readonly<Record<string, Role>>;
}

export const NO_GRANTS: Grants = { team: null, projects: {} };

/** A role stored for a user: for the whole team (projectId null) or one project. */
export interface RoleGrant {
  projectId: string | null;
  role: Role;
}

/** The provider's groups → a role for the whole team (TAKELINE_OIDC_ROLE_MAP). */
export type RoleMap = ReadonlyMap<string, Role>;

export class RoleMapError extends Error {}

/**
 * `takeline-admins=admin,editors=editor`: a group may be named once. Group names are the provider's own
 * (anything but `,` and `=`); surrounding spaces are dropped.
 */
export function parseRoleMap(raw: string | undefined): RoleMap {
  const map = new Map<string, Role>();
  for (const part of (raw ?? '').split(',')) {
    if (!part.trim()) continue;
    const index = part.lastIndexOf('=');
    const group = index < 0 ? '' : part.slice(0, index).trim();
    const role = index < 0 ? '' : part.slice(index + 1).trim();
    if (!group || group.includes('=')) throw new RoleMapError(`TAKELINE_OIDC_ROLE_MAP: "${part.trim()}" is not group=role.`);
    if (!isRole(role)) throw new RoleMapError(`TAKELINE_OIDC_ROLE_MAP: "${role}" (for group "${group}") is not a role; roles are ${ROLES.join(', ')}.`);
    if (map.has(group)) throw new RoleMapError(`TAKELINE_OIDC_ROLE_MAP names the group "${group}" twice.`);
    map.set(group, role);
  }
  return map;
}

/**
 * A user's grants from the roles an admin gave them and the groups their provider named at the last sign-in:
 * for the whole team the higher of the given role and the highest mapped one; project roles as given.
 */
export function grantsOf(given: readonly RoleGrant[], groups: readonly string[], map: RoleMap): Grants {
  let team: Role | null = null;
  const projects: Record<string, Role> = {};
  for (const grant of given) {
    if (grant.projectId === null) team = higher(team, grant.role);
    else projects[grant.projectId] = higher(projects[grant.projectId], grant.role)!;
  }
  for (const group of groups) team = higher(team, map.get(group));
  return { team, projects };
}
