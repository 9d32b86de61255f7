import { NotFoundError } from '../errors';
import type { ProjectStore } from '../storage/project-store';
import type { RoleStore } from '../storage/role-store';
import type { UserRecord, UserStore } from '../storage/user-store';
import { grantsOf, type Role, type RoleGrant, type RoleMap } from './roles';
import type { Actor } from '../audit/actor';

/** A user as an admin manages them: who they are and the roles they hold. */
export interface UserWithRoles {
  user: UserRecord;
  /** The role an admin gave for the whole team. */
  team: Role | null;
  /** The role their provider groups give (TAKELINE_OIDC_ROLE_MAP). */
  groupRole: Role | null;
  projects: Array<{ projectId: string; projectKey: string; role: Role }>;
}

/** Giving and listing roles (`npm run users`, the studio's admin page): users and projects named by id, name or key. */
export class UserRoles {
  constructor(
    private readonly deps: { users: UserStore; roles: RoleStore; projects: ProjectStore; roleMap: RoleMap },
  ) {}

  async list(): Promise<UserWithRoles[]> {
    const [users, roles, projects] = await Promise.all([this.deps.users.list(), this.deps.roles.all(), this.deps.projects.list()]);
    const keys = new Map(projects.map((p) => [p.id, p.key]));
    return users.map((user) => this.view(user, roles.get(user.id) ?? [], keys));
  }

  async get(userRef: string): Promise<UserWithRoles> {
    const user = await this.user(userRef);
    const keys = new Map((await this.deps.projects.list()).map((p) => [p.id, p.key]));
    return this.view(user, await this.deps.roles.of(user.id), keys);
  }

  /** Gives a user one role for the whole team or on a project (null takes it away). */
  async setRole(userRef: string, role: Role | null, projectRef?: string, by?: Actor): Promise<UserWithRoles> {
    const user = await this.user(userRef);
    const projectId = projectRef === undefined ? null : (await this.project(projectRef)).id;
    await this.deps.roles.set(user.id, projectId, role, undefined, { user: user.name, projectKeys: await this.projectKeys(), by });
    return this.get(user.id);
  }

  /** Replaces all of a user's roles. */
  async replace(userRef: string, team: Role | null, projects: ReadonlyArray<{ project: string; role: Role }>, by?: Actor): Promise<UserWithRoles> {
    const user = await this.user(userRef);
    const grants: RoleGrant[] = team === null ? [] : [{ projectId: null, role: team }];
    for (const { project, role } of projects) {
      const id = (await this.project(project)).id;
      // The same project named twice (by key and id, say): the last one holds.
      const same = grants.findIndex((g) => g.projectId === id);
      if (same >= 0) grants.splice(same, 1);
      grants.push({ projectId: id, role });
    }
    await this.deps.roles.replace(user.id, grants, undefined, { user: user.name, projectKeys: await this.projectKeys(), by });
    return this.get(user.id);
  }

  private view(user: UserRecord, given: readonly RoleGrant[], keys: ReadonlyMap<string, string>): UserWithRoles {
    return {
      user,
      team: given.find((g) => g.projectId === null)?.role ?? null,
      groupRole: grantsOf([], user.groups, this.deps.roleMap).team,
      projects: given.flatMap((g) => (g.projectId === null ? [] : [{ projectId: g.projectId, projectKey: keys.get(g.projectId) ?? g.projectId, role: g.role }])),
    };
  }

  private async projectKeys(): Promise<Map<string, string>> {
    return new Map((await this.deps.projects.list()).map((p) => [p.id, p.key]));
  }

  private async user(ref: string): Promise<UserRecord> {
    const user = (await this.deps.users.byName(ref)) ?? (/^[0-9a-f-]{36}$/i.test(ref) ? await this.deps.users.byId(ref) : null);
    if (!user) throw new NotFoundError(`No user "${ref}".`);
    return user;
  }

  private async project(ref: string) {
    const project = await this.deps.projects.find(ref);
    if (!project) throw new NotFoundError(`No project "${ref}".`);
    return project;
  }
}
