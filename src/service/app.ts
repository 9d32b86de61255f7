import fs from 'node:fs';
import path from 'node:path';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { ServiceContext } from './context';
import { errorStyleFor, HttpError, renderError } from './http/errors';
import { storageOutageOf } from './storage/blobs/storage-unavailable';
import { loopbackGuard, requestOrigin } from './http/loopback-guard';
import { accessOf, requireAuth } from './http/authenticate';
import { actingAs, actorOf, clientAddress } from './audit/actor';
import { signedIn, signInFailed } from './audit/sign-in-events';
import { auditRouter } from './http/routes/audit';
import { sessionCookie } from './http/session-cookie';
import { browserSessionRouter } from './http/routes/browser-session';
import { oidcRouter } from './http/routes/oidc';
import { projectScope, sessionScope } from './http/scope';
import { FULL_ACCESS, withGrants, type Access } from './auth/access';
import { grantsOf, NO_GRANTS } from './auth/roles';
import { requireRole } from './http/require-role';
import { meRouter } from './http/routes/me';
import { adminUsersRouter } from './http/routes/admin-users';
import { jsonBody } from './http/json-body';
import { projectsRouter } from './http/routes/projects';
import { signedAudioRouter, transcriptionsRouter } from './http/routes/transcriptions';
import { audioRouter, modelsRouter } from './http/routes/audio';
import { intelligenceRouter } from './http/routes/intelligence';
import { audioSpeechRouter } from './http/routes/audio-speech';
import { dubsRouter, signedDubAudioRouter } from './http/routes/dubs';
import { whisperModelsRouter } from './http/routes/whisper-models';
import { projectTranscriptEditsRouter, transcriptEditsRouter } from './http/routes/transcript-edits';
import { retryRouter } from './http/routes/retry';
import { openApiDocument } from './openapi/document';
import { matchKeyHash } from './auth/api-keys';
import { verifyAudioSignature } from './auth/signed-url';
import { diskFullError, isDiskFull } from './storage/disk-full';
import { InvalidInputError, ServiceError } from './errors';
import { requestMetrics } from './metrics/request-metrics';
import { operationsRouter } from './metrics/operations-routes';

function securityHeaders(_req: Request, res: Response, next: NextFunction) {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
  next();
}

export function createApp(ctx: ServiceContext): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  app.use(requestMetrics(ctx.operations.metrics.requests));
  app.use(securityHeaders);
  // Before the Host guard: load balancers and scrapers address a node by its own IP (/metrics has its own rule).
  app.use(operationsRouter(ctx.operations));
  app.use(loopbackGuard(() => ctx.port(), ctx.config.publicOrigins));

  // TAKELINE_API_KEY's key is checked first, in memory (constant time): requests with it cost no database round
  // trip (on a team's API node under readers, pg's socket writes were a third of its CPU, half of them for the
  // key). Stored keys are random and made by `keys create`, so no stored key can also be that key.
  const keyAccess = async (key: string): Promise<Access | null> =>
    ctx.extraKeyHash !== null && matchKeyHash(key, [ctx.extraKeyHash]) === 0 ? FULL_ACCESS : ctx.keys.access(key);
  const browserAccess = async (token: string): Promise<Access | null> => {
    const found = await ctx.browserSessions.sessionWithRoles(token);
    if (found === null) return null;
    const { session } = found;
    // Signed in by single sign-on: the user with their roles (none until given one), until they are disabled.
    if (session.user !== null) {
      if (session.user.disabled) return null;
      const grants = found.roles.length || found.groups.length ? grantsOf(found.roles, found.groups, ctx.config.roleMap) : NO_GRANTS;
      return withGrants({ ...FULL_ACCESS, user: session.user.name, userDisplayName: found.userDisplayName }, grants);
    }
    // Signed in with a key: what that key sees, for as long as it is not revoked.
    return session.keyId === null ? FULL_ACCESS : ctx.keys.accessById(session.keyId);
  };

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });

  // One-time sign-in link → HttpOnly same-site cookie; the key itself never reaches the browser.
  app.get('/auth/signin', async (req, res) => {
    const address = clientAddress(req.socket.remoteAddress);
    if (!(await ctx.signIn.consume(req.query.token))) {
      await ctx.database.audit.append(signInFailed(address, 'link', 'invalid or used sign-in link'));
      throw new HttpError(403, 'This sign-in link is invalid or was already used. Get a fresh one with `npm run keys -- signin`, or sign in with an API key on the studio page.');
    }
    const { token, maxAgeSeconds } = await ctx.browserSessions.create();
    await ctx.database.audit.append(signedIn(actorOf(FULL_ACCESS, address), 'link'));
    res.setHeader('Set-Cookie', sessionCookie(res, token, maxAgeSeconds));
    res.setHeader('Cache-Control', 'no-store');
    res.redirect(303, '/');
  });

  // The studio's sign-in page also takes an API key (the way back when the one-time link was used up).
  app.post('/auth/signin', express.json({ limit: '4kb' }), async (req, res) => {
    const key = (req.body as { key?: unknown } | undefined)?.key;
    const access = typeof key === 'string' && key.length <= 200 ? await keyAccess(key.trim()) : null;
    const address = clientAddress(req.socket.remoteAddress);
    if (!access) {
      await ctx.database.audit.append(signInFailed(address, 'key', 'not an active API key'));
      throw new HttpError(401, 'That is not an active API key.', { code: 'invalid_api_key' });
    }
    const { token, maxAgeSeconds } = await ctx.browserSessions.create(Date.now(), access.keyId);
    await ctx.database.audit.append(signedIn(actorOf(access, address), 'key'));
    res.setHeader('Set-Cookie', sessionCookie(res, token, maxAgeSeconds));
    res.setHeader('Cache-Control', 'no-store');
    res.status(204).end();
  });

  // Single sign-on through the organisation's OpenID Connect provider, and the session's own routes (who, sign-out).
  if (ctx.oidc) app.use('/auth/oidc', oidcRouter({ ...ctx.oidc, users: ctx.users, browserSessions: ctx.browserSessions, audit: ctx.database.audit, log: ctx.log }));
  app.use('/auth', browserSessionRouter({ browserSessions: ctx.browserSessions, users: ctx.users, oidc: ctx.oidc?.provider ?? null }));

  app.use(
    '/v1/speech/transcriptions',
    signedAudioRouter(ctx, (id, expires, signature) => verifyAudioSignature(ctx.audioSecret, id, expires, signature)),
  );

  app.use('/v1/speech/transcriptions', signedDubAudioRouter(ctx));

  app.use(
    '/v1',
    requireAuth({ keyAccess, browserAccess }),
  );
  // A key limited to projects sees nothing of the others: the recording or project is "not found".
  app.use('/v1/speech/transcriptions/:session_id', sessionScope(ctx));
  app.use('/v1/speech/projects/:project', projectScope(ctx));
  // Every operation's role, from one table (http/route-roles.ts).
  app.use(
    '/v1',
    requireRole({
      projectOfSession: (id) => ctx.sessions.projectOf(id),
      projectOfRef: async (ref) => (await ctx.projects.find(ref))?.id ?? null,
    }),
  );
  app.use('/v1', jsonBody());
  // Who the request acts for, in what it records (audit/actor.ts). After the body parser: its callbacks would lose it.
  app.use('/v1', (req, res, next) => actingAs(actorOf(accessOf(res), clientAddress(req.socket.remoteAddress)), next));
  // Built once per address it is reached at (the guard admits only the service's own), so `servers` is true.
  const openApi = new Map<string, ReturnType<typeof openApiDocument>>();
  app.get('/v1/openapi.json', (_req, res) => {
    const server = requestOrigin(res);
    if (!openApi.has(server)) openApi.set(server, openApiDocument(server));
    res.json(openApi.get(server));
  });
  app.use('/v1/me', meRouter({ projects: ctx.projects, users: ctx.users }));
  app.use('/v1/admin/users', adminUsersRouter(ctx.userRoles));
  app.use('/v1/speech/projects', projectsRouter(ctx.projectService));
  app.use('/v1/speech/transcriptions', transcriptionsRouter(ctx));
  app.use('/v1/speech/transcriptions', retryRouter(ctx));
  // Before the analysis router, whose placeholder revoice route answers 404 for every dub.
  app.use('/v1/speech/transcriptions', dubsRouter(ctx));
  app.use('/v1/speech/transcriptions', intelligenceRouter(ctx));
  app.use('/v1/audio', audioSpeechRouter(ctx));
  app.use('/v1/speech/transcriptions', transcriptEditsRouter(ctx));
  app.use('/v1/speech/projects', projectTranscriptEditsRouter(ctx));
  app.use('/v1/speech/models/whisper', whisperModelsRouter(ctx.whisperModels));
  app.use('/v1/admin', auditRouter(ctx.database.audit));
  app.use('/v1/audio', audioRouter(ctx));
  app.use('/v1/models', modelsRouter(ctx));
  app.use('/v1', (req) => {
    throw new HttpError(404, `No route ${req.method} ${req.originalUrl.split('?')[0]}.`, { code: 'not_found' });
  });

  const studio = ctx.config.studioDir;
  app.use(express.static(studio, { index: 'index.html', fallthrough: true }));
  app.get(/^\/(?!v1\/|auth\/|healthz).*/, (req, res, next) => {
    const index = path.join(studio, 'index.html');
    if (req.method !== 'GET' || !fs.existsSync(index)) return next();
    res.sendFile(index);
  });
  app.use((req) => {
    throw new HttpError(404, `No route ${req.method} ${req.originalUrl.split('?')[0]}.`, { code: 'not_found' });
  });

  app.use((raw: unknown, req: Request, res: Response, _next: NextFunction) => {
    let error = raw;
    // An outage answers 503 to the client; the log says which storage and why.
    const outage = storageOutageOf(raw);
    if (outage) ctx.log(`storage unavailable on ${req.method} ${req.originalUrl.split('?')[0]}: ${outage.reason}`);
    const status = (raw as { status?: unknown })?.status;
    if (!(raw instanceof HttpError) && !(raw instanceof ServiceError) && !(raw instanceof InvalidInputError)) {
      if (isDiskFull(raw)) {
        error = diskFullError();
      } else if (typeof status === 'number' && status >= 400 && status < 500) {
        // Errors from express internals (e.g. a malformed URL): keep the status, not their wording.
        error = new HttpError(status, status === 404 ? 'Not found.' : 'The request could not be processed.');
      } else {
        ctx.log(`error on ${req.method} ${req.originalUrl.split('?')[0]}: ${(raw as Error)?.stack ?? String(raw)}`);
      }
    }
    const rendered = renderError(error, errorStyleFor(req.originalUrl));
    if (res.headersSent) {
      res.destroy();
      return;
    }
    for (const [name, value] of Object.entries(rendered.headers)) res.setHeader(name, value);
    res.status(rendered.status).json(rendered.body);
  });
  return app;
}
