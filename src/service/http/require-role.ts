import type { NextFunction, Request, Response } from 'express';
import { bestRole, roleOn, teamRole, type Access } from '../auth/access';
import { allows, type Role } from '../auth/roles';
import { Uuid } from '../../shared/schemas/common';
import { accessOf } from './authenticate';
import { HttpError } from './errors';
import { ROUTE_ROLES, type Requirement } from './route-roles';

export interface RouteRole {
  method: string;
  /** The OpenAPI path, e.g. `/v1/speech/transcriptions/{session_id}`. */
  path: string;
  requirement: Requirement;
  pattern: RegExp;
  params: string[];
}

/** The table as matchers; paths with fewer parameters first, so a literal segment wins over a parameter. */
export function compileRouteRoles(table: Readonly<Record<string, Requirement>> = ROUTE_ROLES): RouteRole[] {
  return Object.entries(table)
    .map(([operation, requirement]) => {
      const [method, path] = operation.split(' ') as [string, string];
      const params: string[] = [];
      const source = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, (_m, name: string) => {
        params.push(name);
        return '([^/]+)';
      });
      // Case-insensitive, with an optional trailing slash: as Express routes them, so no spelling gets past the check.
      return { method, path, requirement, pattern: new RegExp(`^${source}/?$`, 'i'), params };
    })
    .sort((a, b) => a.params.length - b.params.length);
}

/** The operation a request is, with its path parameters (decoded); null for none in the table. */
export function matchRoute(routes: readonly RouteRole[], method: string, path: string): { route: RouteRole; params: Record<string, string> } | null {
  const asked = method === 'HEAD' ? 'GET' : method;
  for (const route of routes) {
    if (route.method !== asked) continue;
    const found = route.pattern.exec(path);
    if (!found) continue;
    const params: Record<string, string> = {};
    try {
      route.params.forEach((name, i) => (params[name] = decodeURIComponent(found[i + 1]!)));
    } catch {
      return null;
    }
    return { route, params };
  }
  return null;
}

export interface RoleCheckDeps {
  /** The project of a recording, or null when there is none. */
  projectOfSession(sessionId: string): Promise<string | null>;
  /** The id of a project named by id or key, or null when there is none. */
  projectOfRef(ref: string): Promise<string | null>;
}

/**
 * Refuses (403, naming the role) a request whose caller's role falls short of what its operation needs. A caller
 * with the role for the whole team passes without a query; a role on one project is checked against the
 * project of the recording or project in the path (found once: the scope check before may have found it).
 */
export function requireRole(deps: RoleCheckDeps, routes: readonly RouteRole[] = compileRouteRoles()) {
  return async (req: Request, res: Response, next: NextFunction) => {
    const match = matchRoute(routes, req.method, req.originalUrl.split('?')[0]!);
    // Not an operation of the table: an admin of the team gets the 404 further on; anyone else is refused, so a
    // route missing from the table is never open to every role.
    if (!match) {
      if (actsForTeam(accessOf(res), 'admin')) return next();
      return next(refusal(`${req.method} ${req.originalUrl.split('?')[0]}`, 'admin', 'for the whole team', teamRole(accessOf(res))));
    }
    const needed = match.route.requirement;
    if (needed === 'public' || needed === 'signed_in') return next();
    const access = accessOf(res);
    if (actsForTeam(access, needed)) return next();
    const what = `${match.route.method} ${match.route.path}`;
    const { session_id: sessionId, project } = match.params;
    if (sessionId === undefined && project === undefined) {
      if (needed === 'admin') {
        if (actsForTeam(access, 'admin')) return next();
        return next(refusal(what, needed, 'for the whole team', access.kind === 'all' ? teamRole(access) : null));
      }
      if (allows(bestRole(access), needed)) return next();
      return next(refusal(what, needed, 'on a project or for the whole team', bestRole(access)));
    }
    const projectId = await projectOf(deps, res, sessionId, project);
    // No such recording or project: the route answers its own not found.
    if (projectId === null) return next();
    const held = roleOn(access, projectId);
    if (allows(held, needed)) return next();
    next(refusal(what, needed, 'on this project or for the whole team', held));
  };
}

/**
 * Whether the caller holds `needed` for the whole team. A key limited to projects never does, whatever its user's
 * role: its powers end at its projects (the scope check before has made the others not found).
 */
function actsForTeam(access: Access, needed: Role): boolean {
  return access.kind === 'all' && allows(teamRole(access), needed);
}

async function projectOf(deps: RoleCheckDeps, res: Response, sessionId: string | undefined, project: string | undefined): Promise<string | null> {
  const known = res.locals.scopeProjectId as string | null | undefined;
  if (known !== undefined) return known;
  if (sessionId !== undefined) return Uuid.safeParse(sessionId).success ? deps.projectOfSession(sessionId) : null;
  return project!.includes('\0') ? null : deps.projectOfRef(project!);
}

function refusal(what: string, needed: Role, where: string, held: Role | null): HttpError {
  const have = held ? `the ${held} role` : 'no role';
  return new HttpError(403, `${what} needs the ${needed} role ${where}; you have ${have}. Ask an admin of this Takeline server.`, {
    code: 'permission_denied',
  });
}

/** For routes that check a project named in a body (an upload's): the caller's role there, or the same 403. */
export function assertRoleOn(access: Access, projectId: string, needed: Role, what: string): void {
  const held = roleOn(access, projectId);
  if (!allows(held, needed)) throw refusal(what, needed, 'on this project or for the whole team', held);
}
