import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config';
import { DataLayout } from '../storage/files';
import { openRecords } from '../persistence';
import { InvalidUserName, SqlKeyStore, type ApiKeyRecord } from '../storage/key-store';
import { SqlProjectStore, type ProjectStore } from '../storage/project-store';
import { SqlSignInTokens } from '../storage/sign-in-tokens';
import { consoleActor } from '../audit/actor';
import { runCommand, UsageError } from './usage';

function readServiceUrl(file: string): string | null {
  try {
    const url = fs.readFileSync(file, 'utf8').trim();
    return /^http:\/\/127\.0\.0\.1:\d+$/.test(url) ? url : null;
  } catch {
    return null;
  }
}

const USAGE = `usage: npm run keys -- <command>
  create [name] [--user <user>] [--projects <project>[,<project>…]]
                                 prints a new key once; --projects limits it to those projects (keys or
                                 ids; the first is its default), otherwise it sees every project
  list                           id, hint, name, user, projects, created, revoked
  users                          users and how many active keys each has
  projects <id> <project>[,…]    limits a key to these projects (replaces its list)
  projects <id> --all            lets a key see every project
  revoke <id>                    takes effect at once, also in a running service
  signin                         a fresh one-time sign-in link for the studio (also while the service runs)
Keys live in TAKELINE_DATA_DIR (default: the per-user data folder), or a team server's TAKELINE_DATABASE_URL.`;

function describe(r: ApiKeyRecord): string {
  const scope = r.projects === null ? 'all projects' : `projects ${r.projects.join(',') || '(none left)'}`;
  const state = r.revoked_at ? `revoked ${r.revoked_at}` : 'active';
  return `${r.id}  ${r.hint}  ${r.name.padEnd(12)}  user ${r.user ?? '-'}  ${scope}  created ${r.created_at}  ${state}`;
}

/** Project keys or ids → ids, refusing any that does not exist (a key for a mistyped project sees nothing). */
async function projectIds(projects: ProjectStore, list: string): Promise<string[]> {
  const refs = list
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (refs.length === 0) throw new UsageError('--projects needs at least one project key');
  const ids: string[] = [];
  for (const ref of refs) {
    const project = await projects.find(ref);
    if (!project) {
      const known = (await projects.list()).map((p) => p.key);
      throw new UsageError(`no project "${ref}"; projects: ${known.join(', ') || 'none yet'}`);
    }
    ids.push(project.id);
  }
  return ids;
}

/** `npm run keys -- …`: works beside a running service (SQLite WAL). Unknown options are refused, never ignored. */
async function main(argv: string[]): Promise<number> {
  const config = loadConfig();
  const layout = new DataLayout(config.dataDir);
  // The desktop's keys are in its data folder's database; a team's are in PostgreSQL, and the data folder is
  // not touched (an admin's machine gets no empty desktop folder).
  if (!config.databaseUrl) layout.ensure();
  // A team's keys are in its PostgreSQL (TAKELINE_DATABASE_URL), every API node reads them there.
  const records = await openRecords(config.databaseUrl, layout);
  const sql = records.sql;
  const keys = new SqlKeyStore(sql);
  const projects = new SqlProjectStore(sql);
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: { user: { type: 'string' }, projects: { type: 'string' }, all: { type: 'boolean' } },
    });
    const [command, arg, extra, ...rest] = positionals;
    const refuse = (allowed: string[]) => {
      for (const option of Object.keys(values)) if (!allowed.includes(option)) throw new UsageError(`${command} takes no --${option}`);
    };
    switch (command) {
      case 'create': {
        refuse(['user', 'projects']);
        if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}"`);
        const ids = values.projects !== undefined ? await projectIds(projects, values.projects) : undefined;
        const { key, record } = await keys.create(arg ?? 'cli', { user: values.user, projectIds: ids, by: consoleActor() });
        process.stdout.write(`${key}\n`);
        process.stderr.write(`created key ${describe(record)}; it is shown only now. Data: ${records.where}\n`);
        return 0;
      }
      case 'list': {
        refuse([]);
        if (arg !== undefined) throw new UsageError(`unexpected argument "${arg}"`);
        const rows = await keys.list();
        if (rows.length === 0) process.stdout.write('no keys\n');
        for (const r of rows) process.stdout.write(`${describe(r)}\n`);
        return 0;
      }
      case 'users': {
        refuse([]);
        if (arg !== undefined) throw new UsageError(`unexpected argument "${arg}"`);
        const users = await keys.users();
        if (users.length === 0) process.stdout.write('no users\n');
        for (const u of users) process.stdout.write(`${u.id}  ${u.name.padEnd(16)}  ${u.keys} active key${u.keys === 1 ? '' : 's'}  created ${u.created_at}\n`);
        return 0;
      }
      case 'projects': {
        refuse(['all']);
        if (!arg) throw new UsageError('projects needs a key id');
        if (rest.length) throw new UsageError(`unexpected argument "${rest[0]}"`);
        if (Boolean(values.all) === (extra !== undefined)) throw new UsageError('give either a project list or --all');
        const record = await keys.setProjects(arg, values.all ? null : await projectIds(projects, extra!), consoleActor());
        if (!record) {
          process.stderr.write(`no single key matches "${arg}"\n`);
          return 1;
        }
        process.stdout.write(`${describe(record)}\n`);
        return 0;
      }
      case 'signin': {
        refuse([]);
        const token = await new SqlSignInTokens(sql).issue();
        if (config.databaseUrl) {
          // A team's links are in its database: any API node takes it, at whatever address users reach it.
          process.stdout.write(`/auth/signin?token=${token}\n`);
          process.stderr.write('open it on any API node of the team (its address, then this path); it works once\n');
          return 0;
        }
        const running = readServiceUrl(layout.serviceUrl);
        const base = running ?? `http://127.0.0.1:${config.port}`;
        process.stdout.write(`${base}/auth/signin?token=${token}\n`);
        if (!running) process.stderr.write(`no running service found in ${path.resolve(config.dataDir)}; the link works once it runs on port ${config.port}\n`);
        return 0;
      }
      case 'revoke': {
        refuse([]);
        if (!arg) throw new UsageError('revoke needs a key id');
        const record = await keys.revoke(arg, consoleActor());
        if (!record) {
          process.stderr.write(`no single key matches "${arg}"\n`);
          return 1;
        }
        process.stdout.write(`revoked ${record.id} (${record.hint})\n`);
        return 0;
      }
    }
    throw new UsageError(command ? `unknown command "${command}"` : 'no command given');
  } finally {
    await records.close();
  }
}

void runCommand(() => main(process.argv.slice(2)), USAGE, { usageErrors: [InvalidUserName] });
