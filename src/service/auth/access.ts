import { NotFoundError } from '../errors';

/**
 * What one caller may see. A key limited to projects sees only their recordings, dubs, analyses, speakers and
 * vocabulary; everything else answers as if it did not exist (not found), so a limited key cannot even learn
 * what other projects hold.
 */
export type Access =
  | { readonly kind: 'all'; readonly keyId: string | null; readonly keyName: string | null; readonly user: string | null; readonly userDisplayName?: string | null }
  | {
      readonly kind: 'projects';
      readonly keyId: string;
      readonly keyName: string;
      readonly user: string | null;
      readonly userDisplayName?: string | null;
      /** In the order the key was given them: the first is the key's default project. */
      readonly projectIds: readonly string[];
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

/** Creating projects and managing the machine's models is for keys that see everything. */
export function isUnlimited(access: Access): boolean {
  return access.kind === 'all';
}
