import { SESSION_COOKIE } from '../service/http/authenticate';
import { checkApiKey, checkServerUrl } from './team-server-url';

/**
 * The desktop app's two calls to a team server, over any fetch (Electron's session fetch in the app, so the
 * system proxy and certificate store apply; Node's in tests): checking an address and key before they are
 * saved or used, and signing the studio in with the user's key. Routes the service already has: `/healthz`
 * (no key), `GET /v1/speech/projects` (the cheapest route a key must pass, and it tells how many projects
 * the key sees) and `POST /auth/signin` (the studio's sign-in with a key, which sets the session cookie).
 */
export type Fetch = (input: string, init?: RequestInit) => Promise<Response>;

export type ServerCheck =
  | { ok: true; origin: string; key: string; projects: number }
  | { ok: false; field: 'url' | 'key'; message: string };

const TIMEOUT_MS = 10_000;

export async function checkTeamServer(
  input: { url: string; key: string },
  fetch: Fetch,
  timeoutMs = TIMEOUT_MS,
): Promise<ServerCheck> {
  const url = checkServerUrl(input.url);
  if (!url.ok) return { ok: false, field: 'url', message: url.message };
  const key = checkApiKey(input.key);
  if (!key.ok) return { ok: false, field: 'key', message: key.message };
  const { origin } = url;

  const health = await call(fetch, `${origin}/healthz`, { headers: { Accept: 'application/json' } }, timeoutMs);
  if ('error' in health) return { ok: false, field: 'url', message: `${origin} could not be reached: ${health.error}.` };
  if (health.status === 403) {
    // /healthz is refused only by the service's Host/Origin guard: the node does not answer at this address.
    return {
      ok: false,
      field: 'url',
      message: `${origin} refused the request (${messageOf(health.body) ?? 'forbidden'}): the team server does not answer at this address; ask whoever runs it which address to use (docs/team-server.md, "Deployment").`,
    };
  }
  if (health.status !== 200 || (health.body as { status?: unknown } | null)?.status !== 'ok') {
    return { ok: false, field: 'url', message: `${origin} answered, but not as a Takeline server does (GET /healthz gave ${health.status}).` };
  }

  const projects = await call(
    fetch,
    `${origin}/v1/speech/projects`,
    { headers: { Accept: 'application/json', Authorization: `Bearer ${key.key}` } },
    timeoutMs,
  );
  if ('error' in projects) return { ok: false, field: 'url', message: `${origin} could not be reached: ${projects.error}.` };
  if (projects.status === 401) {
    return { ok: false, field: 'key', message: `The team server does not accept this key (revoked, or made for another server).` };
  }
  const list = (projects.body as { data?: unknown } | null)?.data;
  if (projects.status !== 200 || !Array.isArray(list)) {
    return {
      ok: false,
      field: 'url',
      message: `The team server failed to list projects (${projects.status}${messageOf(projects.body) ? `: ${messageOf(projects.body)}` : ''}).`,
    };
  }
  return { ok: true, origin, key: key.key, projects: list.length };
}

/** The studio session cookie the sign-in set, as the app hands it to Electron's cookie store. */
export interface StudioSessionCookie {
  name: string;
  value: string;
  maxAgeSeconds: number;
}

export class SignInError extends Error {
  override name = 'SignInError';
}

/**
 * Signs the studio in with the user's key (`POST /auth/signin`), so the studio sees exactly what the key
 * sees (a project-limited key gives a project-limited studio), and returns the session cookie it set.
 */
export async function signInStudio(origin: string, key: string, fetch: Fetch, timeoutMs = TIMEOUT_MS): Promise<StudioSessionCookie> {
  const answer = await call(
    fetch,
    `${origin}/auth/signin`,
    { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json' }, body: JSON.stringify({ key }) },
    timeoutMs,
  );
  if ('error' in answer) throw new SignInError(`${origin} could not be reached: ${answer.error}`);
  if (answer.status !== 204) {
    throw new SignInError(
      answer.status === 401
        ? 'The team server does not accept the saved key (revoked?). Choose File › Studio Server › Team Server… to enter another.'
        : `The team server refused the sign-in (${answer.status}${messageOf(answer.body) ? `: ${messageOf(answer.body)}` : ''}).`,
    );
  }
  const cookie = sessionCookieOf(answer.setCookie);
  if (!cookie) throw new SignInError('The team server signed in but set no studio session cookie.');
  return cookie;
}

/**
 * Finds the studio session in Set-Cookie header values. Each value may hold several cookies joined by ", "
 * (how a Headers object folds them); the service's cookie values are base64url, so they hold no comma.
 */
export function sessionCookieOf(setCookie: readonly string[]): StudioSessionCookie | null {
  for (const header of setCookie) {
    for (const cookie of header.split(/,\s*(?=[^;,=\s]+=)/)) {
      const [pair, ...attributes] = cookie.split(';').map((part) => part.trim());
      const eq = pair?.indexOf('=') ?? -1;
      if (!pair || eq <= 0 || pair.slice(0, eq) !== SESSION_COOKIE) continue;
      const value = pair.slice(eq + 1);
      if (value === '') continue;
      const maxAge = attributes.map((a) => /^max-age=(\d+)$/i.exec(a)?.[1]).find((m) => m !== undefined);
      return { name: SESSION_COOKIE, value, maxAgeSeconds: maxAge === undefined ? 0 : Number(maxAge) };
    }
  }
  return null;
}

type Answer = { status: number; body: unknown; setCookie: string[] } | { error: string };

async function call(fetch: Fetch, url: string, init: RequestInit, timeoutMs: number): Promise<Answer> {
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
    const text = await response.text();
    let body: unknown = null;
    try {
      body = text ? (JSON.parse(text) as unknown) : null;
    } catch {
      body = text;
    }
    const setCookie =
      typeof response.headers.getSetCookie === 'function' && response.headers.getSetCookie().length > 0
        ? response.headers.getSetCookie()
        : [response.headers.get('set-cookie') ?? ''].filter(Boolean);
    return { status: response.status, body, setCookie };
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    if ((error as Error).name === 'TimeoutError') return { error: `no answer in ${Math.round(timeoutMs / 1000)} s` };
    return { error: cause?.code ?? cause?.message ?? (error as Error).message };
  }
}

/** The message of an error body in either of the service's shapes (FastAPI's detail, OpenAI's error.message). */
function messageOf(body: unknown): string | null {
  if (typeof body !== 'object' || body === null) return null;
  const detail = (body as { detail?: unknown }).detail;
  if (typeof detail === 'string') return detail;
  const message = (body as { error?: { message?: unknown } }).error?.message;
  return typeof message === 'string' ? message : null;
}
