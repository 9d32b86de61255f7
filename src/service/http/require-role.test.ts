import { describe, expect, it } from 'vitest';
import type { Request, Response } from 'express';
import { compileRouteRoles, matchRoute, requireRole } from './require-role';
import { withGrants, type Access } from '../auth/access';
import type { HttpError } from './errors';

const routes = compileRouteRoles();
const SESSION = '0b6f1f8e-5d8a-4f0a-9c57-0e6b3c1d2a11';

async function check(access: Access, method: string, url: string, projectOfSession = async () => 'p1'): Promise<HttpError | undefined> {
  let passed: unknown = 'not called';
  await requireRole({ projectOfSession, projectOfRef: async () => 'p1' }, routes)(
    { method, originalUrl: url } as Request,
    { locals: { access } } as unknown as Response,
    (error?: unknown) => (passed = error),
  );
  return passed as HttpError | undefined;
}

const owner: Access = { kind: 'all', keyId: null, keyName: null, user: null };
const viewer = withGrants({ ...owner, user: 'vera' }, { team: 'viewer', projects: {} });
const projectEditor = withGrants({ ...owner, user: 'pia' }, { team: 'viewer', projects: { p1: 'editor' } });

describe('the role check', () => {
  it('matches an operation however Express would route it: any case, a trailing slash, HEAD as GET', () => {
    expect(matchRoute(routes, 'GET', `/v1/speech/transcriptions/${SESSION}`)?.route.path).toBe('/v1/speech/transcriptions/{session_id}');
    expect(matchRoute(routes, 'PATCH', `/V1/Speech/Transcriptions/${SESSION}/MEDIA/`)?.route.path).toBe('/v1/speech/transcriptions/{session_id}/media');
    expect(matchRoute(routes, 'HEAD', `/v1/speech/transcriptions/${SESSION}/peaks`)?.route.requirement).toBe('viewer');
    // A literal segment wins over a parameter.
    expect(matchRoute(routes, 'POST', '/v1/speech/projects/show/transcripts/replace')?.params).toEqual({ project: 'show' });
  });

  it('refuses with 403 naming the role, and lets a role on the project through', async () => {
    const refused = await check(viewer, 'PATCH', `/v1/speech/transcriptions/${SESSION}/media`);
    expect(refused?.status).toBe(403);
    expect(refused?.message).toMatch(/needs the editor role on this project or for the whole team; you have the viewer role/);
    expect(await check(viewer, 'PATCH', `/V1/SPEECH/TRANSCRIPTIONS/${SESSION}/media`)).toMatchObject({ status: 403 });
    expect(await check(projectEditor, 'PATCH', `/v1/speech/transcriptions/${SESSION}/media`)).toBeUndefined();
    expect(await check(projectEditor, 'PATCH', `/v1/speech/transcriptions/${SESSION}/media`, async () => 'p2')).toMatchObject({ status: 403 });
    expect(await check(projectEditor, 'POST', '/v1/speech/projects')).toMatchObject({ status: 403, message: expect.stringMatching(/needs the admin role for the whole team/) });
    expect(await check(owner, 'DELETE', `/v1/speech/transcriptions/${SESSION}`)).toBeUndefined();
  });

  it('refuses what is not in the table to all but admins of the team (who get the 404 further on)', async () => {
    expect(await check(viewer, 'GET', '/v1/speech/undocumented')).toMatchObject({ status: 403 });
    expect(await check(owner, 'GET', '/v1/speech/undocumented')).toBeUndefined();
  });

  it("takes a limited key's project from the scope check before it: no second lookup", async () => {
    const limited = withGrants({ kind: 'projects', keyId: 'k', keyName: 'k', user: 'vera', projectIds: ['p1'] }, { team: 'viewer', projects: {} });
    let lookups = 0;
    const lookup = async () => (lookups++, 'p1');
    let passed: unknown = 'not called';
    await requireRole({ projectOfSession: lookup, projectOfRef: lookup }, routes)(
      { method: 'GET', originalUrl: `/v1/speech/transcriptions/${SESSION}` } as Request,
      { locals: { access: limited, scopeProjectId: 'p1' } } as unknown as Response,
      (error?: unknown) => (passed = error),
    );
    expect(passed).toBeUndefined();
    expect(lookups).toBe(0);
    // Without the scope check's answer, the role check looks it up, once.
    expect(await check(limited, 'PATCH', `/v1/speech/transcriptions/${SESSION}/media`, lookup)).toMatchObject({ status: 403 });
    expect(lookups).toBe(1);
  });
});
