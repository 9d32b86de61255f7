import { Router } from 'express';
import type { z } from 'zod';
import type { Me } from '../../../shared/schemas';
import { teamRole } from '../../auth/access';
import type { ServiceContext } from '../../context';
import { accessOf } from '../authenticate';

/** `GET /v1/me`: who the caller is and the roles they hold, for the studio to show only what they may do. */
export function meRouter(deps: Pick<ServiceContext, 'projects' | 'users'>): Router {
  const router = Router();
  router.get('/', async (_req, res) => {
    const access = accessOf(res);
    const granted = Object.entries(access.grants?.projects ?? {});
    const keys = granted.length ? new Map((await deps.projects.list()).map((p) => [p.id, p.key])) : new Map<string, string>();
    const user = access.user === null ? null : await deps.users.byName(access.user);
    const me: z.output<typeof Me> = {
      user: access.user,
      display_name: user?.displayName ?? null,
      key: access.keyName,
      team_role: teamRole(access),
      projects: granted.flatMap(([id, role]) => (keys.has(id) ? [{ project_id: id, project_key: keys.get(id)!, role }] : [])),
      limited_to_projects: access.kind === 'projects',
    };
    res.setHeader('Cache-Control', 'no-store');
    res.json(me);
  });
  return router;
}
