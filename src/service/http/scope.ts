import type { NextFunction, Request, Response } from 'express';
import type { ServiceContext } from '../context';
import { seesProject, teamRole } from '../auth/access';
import { allows } from '../auth/roles';
import { assertRoleOn } from './require-role';
import { accessOf } from './authenticate';
import { HttpError } from './errors';
import { Uuid } from '../../shared/schemas/common';

/**
 * Every route under a recording (its audio address, exports, analysis, dubs, transcript edits…) answers a key
 * limited to other projects exactly as for a recording that does not exist. Routes validate the id
 * themselves; an id that names no recording passes here and gets their own answer.
 */
export function sessionScope(ctx: ServiceContext) {
  return async (req: Request, res: Response, next: NextFunction) => {
    const access = accessOf(res);
    if (access.kind === 'all') return next();
    const id = String(req.params.session_id);
    // Recordings' ids are UUIDs: anything else names none (and is not sent to the database; PostgreSQL's text
    // cannot even hold some of it), so the route answers it as it does for every key.
    if (!Uuid.safeParse(id).success) return next();
    const projectId = await ctx.sessions.projectOf(id);
    if (projectId !== null && !seesProject(access, projectId)) return next(new HttpError(404, 'Transcription session not found.'));
    // The role check after this needs the same project: found once.
    res.locals.scopeProjectId = projectId;
    next();
  };
}

/** The same for a project (by id or key): its speakers, vocabulary and the project itself. */
export function projectScope(ctx: ServiceContext) {
  return async (req: Request, res: Response, next: NextFunction) => {
    const access = accessOf(res);
    if (access.kind === 'all') return next();
    const ref = String(req.params.project);
    if (ref.includes('\0')) return next();
    const project = await ctx.projects.find(ref);
    if (project && !seesProject(access, project.id)) return next(new HttpError(404, 'Project not found.'));
    res.locals.scopeProjectId = project?.id ?? null;
    next();
  };
}

/**
 * The project an upload goes into, for a limited key: only one of its own (an unknown key would make a new
 * project, which only unlimited keys may do). Answers with the project key to use: the one asked for, or
 * the key's default project (its first) when the request names none.
 */
export async function uploadProjectKey(ctx: ServiceContext, res: Response, requested: string | undefined, fallback: string): Promise<string> {
  const access = accessOf(res);
  const what = 'Uploading a recording';
  if (access.kind === 'all') {
    const key = requested ?? fallback;
    if (allows(teamRole(access), 'editor')) return key;
    // An editor of some projects only: into one of those; a new project needs an admin of the team.
    const project = await ctx.projects.find(key);
    if (!project) throw new HttpError(403, `${what} into a new project needs the admin role for the whole team.`, { code: 'permission_denied', param: 'project_key' });
    assertRoleOn(access, project.id, 'editor', what);
    return project.key;
  }
  if (requested === undefined) {
    const first = access.projectIds[0] && (await ctx.projects.find(access.projectIds[0]));
    if (!first) throw new HttpError(404, 'Project not found: this key is limited to projects that no longer exist.');
    assertRoleOn(access, first.id, 'editor', what);
    return first.key;
  }
  const project = await ctx.projects.find(requested);
  if (!project || !seesProject(access, project.id)) {
    throw new HttpError(404, `Project not found: this key is limited to its own projects and cannot create one.`, { param: 'project_key' });
  }
  assertRoleOn(access, project.id, 'editor', what);
  return project.key;
}

/** Creating projects and managing the machine's models are for keys that see every project. */
export function requireUnlimited(what: string) {
  return (_req: Request, res: Response, next: NextFunction) => {
    if (accessOf(res).kind === 'all') return next();
    next(new HttpError(403, `This key is limited to some projects; it cannot ${what}.`, { code: 'permission_denied' }));
  };
}
