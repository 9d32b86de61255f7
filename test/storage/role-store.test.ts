import { expect, it } from 'vitest';
import { SqlBrowserSessionStore } from '../../src/service/storage/browser-sessions';
import { SqlKeyStore } from '../../src/service/storage/key-store';
import { SqlProjectStore } from '../../src/service/storage/project-store';
import { SqlRoleStore } from '../../src/service/storage/role-store';
import { SqlUserStore, type ProviderIdentity } from '../../src/service/storage/user-store';
import { UserRoles } from '../../src/service/auth/user-roles';
import { bestRole, roleOn, teamRole } from '../../src/service/auth/access';
import { parseRoleMap } from '../../src/service/auth/roles';
import { SqlAuditStore } from '../../src/service/storage/audit-store';
import { consoleActor } from '../../src/service/audit/actor';
import { eachBackend } from '../helpers/sql-backends';

const identity = (subject: string, groups: string[] = []): ProviderIdentity => ({
  issuer: 'https://login.example.com',
  subject,
  preferredName: subject,
  displayName: null,
  email: null,
  groups,
});

// Roles, and what every request reads of them with its key or studio session.
eachBackend('RoleStore', (backend) => {
  it('keeps one role for the team and one per project, replaced, taken away, and gone with its project', async () => {
    const { sql } = backend();
    const roles = new SqlRoleStore(sql);
    const [a, b] = await Promise.all(['a', 'b'].map((key) => new SqlProjectStore(sql).create(key, key)));
    const ada = await new SqlUserStore(sql).signIn(identity('ada'));
    await roles.set(ada.id, null, 'viewer');
    await roles.set(ada.id, a!.id, 'editor');
    await roles.set(ada.id, null, 'admin');
    expect(await roles.of(ada.id)).toEqual([
      { projectId: null, role: 'admin' },
      { projectId: a!.id, role: 'editor' },
    ]);
    await roles.replace(ada.id, [{ projectId: b!.id, role: 'viewer' }]);
    expect(await roles.of(ada.id)).toEqual([{ projectId: b!.id, role: 'viewer' }]);
    await expect(roles.replace(ada.id, [{ projectId: a!.id, role: 'viewer' }, { projectId: a!.id, role: 'editor' }])).rejects.toThrow(/named twice/);
    expect(await roles.of(ada.id)).toEqual([{ projectId: b!.id, role: 'viewer' }]);
    await roles.set(ada.id, b!.id, null);
    expect(await roles.of(ada.id)).toEqual([]);
    // A 'none' row is only for the team.
    await expect(sql.run("INSERT INTO user_roles (user_id, project_id, role, granted_at) VALUES (?, ?, 'none', 'x')", [ada.id, a!.id])).rejects.toThrow();
    // The database refuses a role it does not know, and a second team role.
    await expect(sql.run("INSERT INTO user_roles (user_id, project_id, role, granted_at) VALUES (?, NULL, 'owner', 'x')", [ada.id])).rejects.toThrow();
    await roles.set(ada.id, null, 'viewer');
    await expect(sql.run("INSERT INTO user_roles (user_id, project_id, role, granted_at) VALUES (?, NULL, 'admin', 'x')", [ada.id])).rejects.toThrow();
    expect((await roles.all()).get(ada.id)).toEqual([{ projectId: null, role: 'viewer' }]);
  });

  it('records each role an admin changes in the audit trail, with the change', async () => {
    const { sql } = backend();
    const projects = new SqlProjectStore(sql);
    await projects.create('alpha', 'Alpha');
    await new SqlUserStore(sql).signIn(identity('ada'));
    const userRoles = new UserRoles({ users: new SqlUserStore(sql), roles: new SqlRoleStore(sql), projects, roleMap: parseRoleMap('') });
    await userRoles.setRole('ada', 'editor', undefined, consoleActor());
    await userRoles.setRole('ada', 'admin', 'alpha', consoleActor());
    // The same role again changes nothing and records nothing.
    await userRoles.setRole('ada', 'editor', undefined, consoleActor());
    await userRoles.replace('ada', 'viewer', [], consoleActor());
    const { data } = await new SqlAuditStore(sql).list({ kind: 'role.changed', limit: 50, offset: 0 });
    const changes = data.map((e) => [e.object?.id, e.project?.key ?? null, e.detail.previous, e.detail.role]).reverse();
    expect(changes).toEqual([
      ['ada', null, null, 'editor'],
      ['ada', 'alpha', null, 'admin'],
      ['ada', null, 'editor', 'viewer'],
      ['ada', 'alpha', 'admin', null],
    ]);
    expect(data.every((e) => e.actor.kind === 'console')).toBe(true);
  });

  it("gives a key its user's roles within the key's projects, in the same read; a user with no role gets none", async () => {
    const { sql } = backend();
    const projects = new SqlProjectStore(sql);
    const [a, b] = await Promise.all(['a', 'b'].map((key) => projects.create(key, key)));
    const users = new SqlUserStore(sql);
    const roles = new SqlRoleStore(sql);
    const keys = new SqlKeyStore(sql, parseRoleMap('takeline-editors=editor'));
    // Made only to own keys and never given a role: the keys' powers as before roles.
    const legacy = await keys.create('legacy', { user: 'old-timer' });
    expect(teamRole((await keys.access(legacy.key))!)).toBe('admin');
    // Signed in by the provider, no role: nothing, and no project seen.
    const sso = await users.signIn(identity('sam'));
    const samKey = await keys.create('sam-tool', { user: sso.name });
    const none = (await keys.access(samKey.key))!;
    expect(none).toMatchObject({ kind: 'projects', projectIds: [] });
    expect(bestRole(none)).toBeNull();
    // A role on one project: only that project, with that role.
    await roles.set(sso.id, a!.id, 'editor');
    const onA = (await keys.access(samKey.key))!;
    expect(onA).toMatchObject({ kind: 'projects', projectIds: [a!.id] });
    expect(roleOn(onA, a!.id)).toBe('editor');
    // A team role: every project, the project role still the higher on its project.
    await roles.set(sso.id, null, 'viewer');
    const team = (await keys.accessById(samKey.record.id))!;
    expect(team.kind).toBe('all');
    expect([roleOn(team, a!.id), roleOn(team, b!.id)]).toEqual(['editor', 'viewer']);
    // A key limited to b acts on b only, with the user's role there (never more).
    const limited = await keys.create('sam-b', { user: sso.name, projectIds: [b!.id] });
    const onB = (await keys.access(limited.key))!;
    expect(onB).toMatchObject({ kind: 'projects', projectIds: [b!.id] });
    expect(roleOn(onB, b!.id)).toBe('viewer');
    // The provider's groups by the configured map.
    const grouped = await users.signIn(identity('gus', ['takeline-editors']));
    const gusKey = await keys.create('gus-tool', { user: grouped.name });
    expect(teamRole((await keys.access(gusKey.key))!)).toBe('editor');
    // A disabled user's keys may do nothing.
    await users.setDisabled(sso.name, true);
    expect(bestRole((await keys.access(samKey.key))!)).toBeNull();
    // The legacy owner given a role follows it; with it taken away again, they have none (not the old powers).
    const owner = (await users.byName('old-timer'))!;
    await roles.set(owner.id, null, 'viewer');
    expect(teamRole((await keys.access(legacy.key))!)).toBe('viewer');
    await roles.set(owner.id, null, null);
    expect(bestRole((await keys.access(legacy.key))!)).toBeNull();
    await roles.replace(owner.id, []);
    expect(bestRole((await keys.access(legacy.key))!)).toBeNull();
  });

  it("reads a studio session's user roles and groups with the session", async () => {
    const { sql } = backend();
    const users = new SqlUserStore(sql);
    const sessions = new SqlBrowserSessionStore(sql);
    const project = await new SqlProjectStore(sql).create('a', 'A');
    const ada = await users.signIn(identity('ada', ['staff']));
    const { token } = await sessions.create(Date.now(), null, ada.id);
    expect(await sessions.sessionWithRoles(token)).toMatchObject({ roles: [], groups: ['staff'] });
    await new SqlRoleStore(sql).replace(ada.id, [
      { projectId: null, role: 'viewer' },
      { projectId: project.id, role: 'admin' },
    ]);
    const found = await sessions.sessionWithRoles(token);
    expect(found?.session.user?.name).toBe('ada');
    expect(found?.roles).toEqual(expect.arrayContaining([{ projectId: null, role: 'viewer' }, { projectId: project.id, role: 'admin' }]));
    expect(found?.roles).toHaveLength(2);
  });

  it('lists users with their roles and gives roles by name and project key', async () => {
    const { sql } = backend();
    const projects = new SqlProjectStore(sql);
    const a = await projects.create('a', 'A');
    const users = new SqlUserStore(sql);
    await users.signIn(identity('ada', ['leads']));
    const userRoles = new UserRoles({ users, roles: new SqlRoleStore(sql), projects, roleMap: parseRoleMap('leads=admin') });
    expect(await userRoles.setRole('ada', 'editor', 'a')).toMatchObject({ team: null, groupRole: 'admin', projects: [{ projectId: a.id, projectKey: 'a', role: 'editor' }] });
    await expect(userRoles.setRole('nobody', 'viewer')).rejects.toThrow(/No user "nobody"/);
    await expect(userRoles.setRole('ada', 'viewer', 'zzz')).rejects.toThrow(/No project "zzz"/);
    const replaced = await userRoles.replace('ada', 'viewer', [{ project: a.id, role: 'viewer' }, { project: 'a', role: 'admin' }]);
    expect(replaced).toMatchObject({ team: 'viewer', projects: [{ projectKey: 'a', role: 'admin' }] });
    expect((await userRoles.list()).map((u) => [u.user.name, u.team])).toEqual([['ada', 'viewer']]);
  });
});
