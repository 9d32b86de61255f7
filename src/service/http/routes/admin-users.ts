import { Router } from 'express';
import { z } from 'zod';
import { RolesUpdate, type AdminUser } from '../../../shared/schemas';
import type { UserRoles, UserWithRoles } from '../../auth/user-roles';
import { parseInput } from '../../validation';
import { requireUnlimited } from '../scope';

const UserRef = z.object({ user_id: z.string().min(1).max(100) });

function toAdminUser(view: UserWithRoles): z.output<typeof AdminUser> {
  const { user } = view;
  return {
    id: user.id,
    name: user.name,
    display_name: user.displayName,
    email: user.email,
    disabled: user.disabled,
    single_sign_on: user.subject !== null,
    groups: user.groups,
    created_at: user.createdAt,
    last_sign_in_at: user.lastSignInAt,
    team_role: view.team,
    group_role: view.groupRole,
    projects: view.projects.map((p) => ({ project_id: p.projectId, project_key: p.projectKey, role: p.role })),
  };
}

/** `/v1/admin/users`: the users and their roles, and giving roles (admins of the whole team; the role check says so). */
export function adminUsersRouter(userRoles: UserRoles): Router {
  const router = Router();
  // A key limited to projects manages no users, whatever its user's role.
  router.use(requireUnlimited('manage users'));

  router.get('/', async (_req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    res.json({ data: (await userRoles.list()).map(toAdminUser) });
  });

  router.put('/:user_id/roles', async (req, res) => {
    const { user_id: ref } = parseInput(UserRef, req.params, 'path');
    const body = parseInput(RolesUpdate, req.body, 'body');
    res.json(toAdminUser(await userRoles.replace(ref, body.team, body.projects)));
  });
  return router;
}
