import { parseArgs } from 'node:util';
import { loadConfig } from '../config';
import { DataLayout } from '../storage/files';
import { openRecords } from '../persistence';
import { SqlUserStore } from '../storage/user-store';
import { SqlRoleStore } from '../storage/role-store';
import { SqlProjectStore } from '../storage/project-store';
import { UserRoles, type UserWithRoles } from '../auth/user-roles';
import { isRole, ROLES } from '../auth/roles';
import { NotFoundError } from '../errors';
import { consoleActor } from '../audit/actor';
import { runCommand, UsageError } from './usage';

const USAGE = `usage: npm run users -- <command>
  list                                        users, their roles and how they sign in
  role <user> <viewer|editor|admin> [--project <project>]
                                              gives the role for the whole team, or on one project (key or id)
  role <user> none [--project <project>]      takes that role away
Users are named by name or id. Roles take effect at the next request, on every API node.
Users live in TAKELINE_DATA_DIR (default: the per-user data folder), or a team server's TAKELINE_DATABASE_URL.`;

function describe(view: UserWithRoles): string {
  const { user } = view;
  const roles = [
    view.team ? `team ${view.team}` : null,
    view.groupRole ? `groups ${view.groupRole}` : null,
    ...view.projects.map((p) => `${p.projectKey} ${p.role}`),
  ].filter(Boolean);
  const how = user.subject !== null ? 'single sign-on' : 'keys';
  const state = user.disabled ? '  disabled' : '';
  const shown = roles.length ? roles.join(', ') : user.subject !== null ? 'no role' : "no role (its keys keep the keys' own powers)";
  return `${user.id}  ${user.name.padEnd(16)}  ${shown}  (${how}${user.email ? `, ${user.email}` : ''})${state}`;
}

/** `npm run users -- …`: roles beside a running service (SQLite WAL) or a team's PostgreSQL. */
async function main(argv: string[]): Promise<number> {
  const config = loadConfig();
  const layout = new DataLayout(config.dataDir);
  // A team's users are in PostgreSQL: the admin's machine gets no desktop data folder.
  if (!config.databaseUrl) layout.ensure();
  const records = await openRecords(config.databaseUrl, layout);
  const { sql } = records;
  const userRoles = new UserRoles({ users: new SqlUserStore(sql), roles: new SqlRoleStore(sql), projects: new SqlProjectStore(sql), roleMap: config.roleMap });
  try {
    const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, strict: true, options: { project: { type: 'string' } } });
    const [command, user, role, ...rest] = positionals;
    switch (command) {
      case 'list': {
        if (values.project !== undefined) throw new UsageError('list takes no --project');
        if (user !== undefined) throw new UsageError(`unexpected argument "${user}"`);
        const users = await userRoles.list();
        if (users.length === 0) process.stdout.write('no users\n');
        for (const view of users) process.stdout.write(`${describe(view)}\n`);
        return 0;
      }
      case 'role': {
        if (!user || !role) throw new UsageError('role needs a user and a role');
        if (rest.length) throw new UsageError(`unexpected argument "${rest[0]}"`);
        if (role !== 'none' && !isRole(role)) throw new UsageError(`"${role}" is not a role; roles are ${ROLES.join(', ')} (or none)`);
        const view = await userRoles.setRole(user, role === 'none' ? null : role, values.project, consoleActor());
        process.stdout.write(`${describe(view)}\n`);
        return 0;
      }
    }
    throw new UsageError(command ? `unknown command "${command}"` : 'no command given');
  } finally {
    await records.close();
  }
}

void runCommand(() => main(process.argv.slice(2)), USAGE, { failures: [NotFoundError] });
