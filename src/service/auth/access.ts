import { NotFoundError } from '../errors';
import { higher, type Grants, type Role } from './roles';

/**
 * What one caller may see. A key limited to projects sees only their recordings, dubs, analyses, speakers and
 * vocabulary; everything else answers as if it did not exist (not found), so a limited key cannot even learn
 * what other projects hold.
 */
export type Access =
  | { readonly kind: 'all'; readonly keyId: string | null; readonly keyName: string | null; readonly user: string | null; readonly userDisplayName?: string | null; readonly grants?: Grants }
  | {
      readonly kind: 'projects';
      readonly keyId: string | null;
      readonly keyName: string | null;
      readonly user: string | null;
      readonly userDisplayName?: string | null;
      /** In the order the key was given them: the first is the key's default project. */
      readonly projectIds: readonly string[];
      /**
       * The roles of the person acting (a signed-in user, or a key's user once they have roles): absent for the
       * desktop, TAKELINE_API_KEY, the service's own key and keys of no such user, which are admin within what
       * they see.
       */
      readonly grants?: Grants;
    };

/** The access of the service's own key, TAKELINE_API_KEY and the studio signed in with either. */
export const FULL_ACCESS: Access = { kind: 'all', keyId: null, keyName: null, user: null };

export function seesProject(access: Access, projectId: string): boolean {
  return access.kind === 'all' || access.projectIds.includes(projectId);
}

/** The project ids a list must be narrowed to, or null for every project. */
export function visibleProjectIds(access: Access): readonly string[] | null {
  return access.kind === 'all' ? null : access.projectIds;
}

/** Throws the same not-found a missing thing gets when the caller may not see the project it belongs to. */
export function assertSeesProject(access: Access, projectId: string, notFoundMessage: string): void {
  if (!seesProject(access, projectId)) throw new NotFoundError(notFoundMessage);
}

/**
 * A user's access under a key's (or a session's) own limit: with a role for the whole team they see what the
 * limit lets them; with roles on some projects only, just those (never more than the limit).
 */
export function withGrants(base: Access, grants: Grants): Access {
  if (grants.team !== null) return { ...base, grants };
  const granted = Object.keys(grants.projects);
  const projectIds = base.kind === 'all' ? granted : base.projectIds.filter((id) => granted.includes(id));
  return { kind: 'projects', keyId: base.keyId, keyName: base.keyName, user: base.user, projectIds, grants };
}

/** The caller's role for the whole team (admin without grants: the keys and links that are the owner's). */
export function teamRole(access: Access): Role | null {
  return access.grants ? access.grants.team : 'admin';
}

/** The caller's role on a project it sees: the higher of its team role and its role on that project. */
export function roleOn(access: Access, projectId: string): Role | null {
  if (!access.grants) return 'admin';
  return higher(access.grants.team, access.grants.projects[projectId]);
}

/** The caller's highest role anywhere (what lists and uploads need before a project is named). */
export function bestRole(access: Access): Role | null {
  if (!access.grants) return 'admin';
  let best = access.grants.team;
  for (const role of Object.values(access.grants.projects)) best = higher(best, role);
  return best;
}

/** Creating projects and managing the machine's models is for keys that see everything. */
export function isUnlimited(access: Access): boolean {
  return access.kind === 'all';
}
