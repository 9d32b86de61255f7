/** Who is signed in and what they may do (`GET /v1/me`), and the admin page's users and roles. */
import type { z } from 'zod';
import type { AdminUser, Me, RoleName, RolesUpdate } from '../../../shared/schemas/roles';

export type Role = z.output<typeof RoleName>;
export type MeInfo = z.output<typeof Me>;
export type AdminUserInfo = z.output<typeof AdminUser>;
export type RolesChange = z.input<typeof RolesUpdate>;

export interface RolesApi {
  getMe(signal?: AbortSignal): Promise<MeInfo>;
  listUsers(signal?: AbortSignal): Promise<AdminUserInfo[]>;
  /** Replaces all of a user's roles. */
  setUserRoles(user: string, change: RolesChange): Promise<AdminUserInfo>;
}

type Json = <T>(path: string, init?: RequestInit) => Promise<T>;

export function rolesApi(json: Json): RolesApi {
  return {
    getMe: (signal) => json<MeInfo>('/v1/me', { signal }),
    listUsers: async (signal) => (await json<{ data: AdminUserInfo[] }>('/v1/admin/users', { signal })).data,
    setUserRoles: (user, change) =>
      json<AdminUserInfo>(`/v1/admin/users/${encodeURIComponent(user)}/roles`, {
        method: 'PUT',
        body: JSON.stringify(change),
        headers: { 'Content-Type': 'application/json' },
      }),
  };
}

const RANK: Record<Role, number> = { viewer: 1, editor: 2, admin: 3 };

/** The caller's role on a project (by id): the higher of the team's and the project's; null without one. */
export function roleOn(me: MeInfo, projectId: string | null): Role | null {
  const onProject = projectId === null ? undefined : me.projects.find((p) => p.project_id === projectId)?.role;
  if (!onProject) return me.team_role;
  if (!me.team_role) return onProject;
  return RANK[onProject] > RANK[me.team_role] ? onProject : me.team_role;
}

/** Whether the caller holds at least `needed` (on the project, when one is named). */
export function may(me: MeInfo | null, needed: Role, projectId: string | null = null): boolean {
  // Until the service has said, the studio shows nothing it may have to take away again.
  if (!me) return false;
  const held = projectId === null ? bestRole(me) : roleOn(me, projectId);
  return held !== null && RANK[held] >= RANK[needed];
}

/** The highest role anywhere (what a list or an upload into one of one's projects needs). */
export function bestRole(me: MeInfo): Role | null {
  return me.projects.reduce<Role | null>((best, p) => (best === null || RANK[p.role] > RANK[best] ? p.role : best), me.team_role);
}

/** Whether the caller may do anything at all here. */
export function hasAnyRole(me: MeInfo): boolean {
  return bestRole(me) !== null;
}
