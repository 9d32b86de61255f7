import { useCallback, useEffect, useState } from 'react';
import type { AdminUserInfo, Role } from '../api/roles';
import type { Project } from '../api/types';
import { messageOf } from '../api/errors';
import { useApp } from '../app-context';
import { TopBar } from '../components/TopBar';
import { ErrorState, Loading } from '../components/States';

const ROLES: Role[] = ['viewer', 'editor', 'admin'];

/** The admin page: every user, how they sign in, and their roles for the team and per project. */
export function AdminView() {
  const { api, store } = useApp();
  const [users, setUsers] = useState<AdminUserInfo[] | null>(null);
  const [projects, setProjects] = useState<Project[]>([]);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(() => {
    const controller = new AbortController();
    Promise.all([api.listUsers(controller.signal), api.listProjects(controller.signal)]).then(
      ([u, p]) => {
        setUsers(u);
        setProjects(p);
        setError(null);
      },
      (e: unknown) => (e as Error).name !== 'AbortError' && setError(messageOf(e)),
    );
    return () => controller.abort();
  }, [api]);
  useEffect(load, [load]);

  const save = async (user: AdminUserInfo, team: Role | null, onProjects: Array<{ project: string; role: Role }>) => {
    try {
      const updated = await api.setUserRoles(user.id, { team, projects: onProjects });
      setUsers((all) => all?.map((u) => (u.id === updated.id ? updated : u)) ?? null);
      store.getState().notify(`${updated.name}'s roles saved`);
    } catch (e) {
      store.getState().notify(messageOf(e), 'error');
    }
  };

  return (
    <>
      <TopBar crumbs={[{ label: 'Projects', href: '#/' }, { label: 'Admin' }]} />
      <main className="page" data-testid="admin-page">
        <h1>Users and roles</h1>
        <p className="hint">
          Viewers listen, read, export and leave notes; editors also correct transcripts, edit and revoice dubs, set timebases and upload;
          admins also manage projects, users and models. A role on a project adds to the team role there.
        </p>
        {error ? (
          <ErrorState message={error} onRetry={load} />
        ) : users === null ? (
          <Loading label="Loading users…" />
        ) : (
          <table className="admin-users">
            <thead>
              <tr>
                <th>User</th>
                <th>Signs in by</th>
                <th>Team role</th>
                <th>Project roles</th>
              </tr>
            </thead>
            <tbody>
              {users.map((user) => (
                <UserRow key={user.id} user={user} projects={projects} onSave={save} />
              ))}
            </tbody>
          </table>
        )}
      </main>
    </>
  );
}

function UserRow({
  user,
  projects,
  onSave,
}: {
  user: AdminUserInfo;
  projects: Project[];
  onSave(user: AdminUserInfo, team: Role | null, onProjects: Array<{ project: string; role: Role }>): Promise<void>;
}) {
  const current = user.projects.map((p) => ({ project: p.project_id, role: p.role }));
  const [adding, setAdding] = useState('');
  const free = projects.filter((p) => !user.projects.some((r) => r.project_id === p.id));
  return (
    <tr data-testid={`admin-user-${user.name}`}>
      <td>
        <strong>{user.display_name ?? user.name}</strong>
        <div className="hint">
          {user.name}
          {user.email ? ` · ${user.email}` : ''}
          {user.disabled ? ' · disabled' : ''}
        </div>
      </td>
      <td>{user.single_sign_on ? 'single sign-on' : 'API keys'}</td>
      <td>
        <select
          aria-label={`Team role of ${user.name}`}
          data-testid="team-role"
          value={user.team_role ?? ''}
          onChange={(e) => void onSave(user, (e.target.value || null) as Role | null, current)}
        >
          <option value="">none</option>
          {ROLES.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
        {user.group_role && <div className="hint">from groups: {user.group_role}</div>}
      </td>
      <td>
        {user.projects.map((p) => (
          <div key={p.project_id}>
            {p.project_key}:{' '}
            <select
              aria-label={`Role of ${user.name} on ${p.project_key}`}
              value={p.role}
              onChange={(e) => void onSave(user, user.team_role, current.map((c) => (c.project === p.project_id ? { ...c, role: e.target.value as Role } : c)))}
            >
              {ROLES.map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </select>{' '}
            <button className="ghost" onClick={() => void onSave(user, user.team_role, current.filter((c) => c.project !== p.project_id))}>
              Remove
            </button>
          </div>
        ))}
        {free.length > 0 && (
          <select
            aria-label={`Give ${user.name} a role on a project`}
            value={adding}
            onChange={(e) => {
              setAdding('');
              if (e.target.value) void onSave(user, user.team_role, [...current, { project: e.target.value, role: 'viewer' }]);
            }}
          >
            <option value="">Add a project…</option>
            {free.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </select>
        )}
      </td>
    </tr>
  );
}
