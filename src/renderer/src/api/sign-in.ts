/**
 * Signs the studio in with an API key (the way back when the one-time link was already used): the
 * service answers with the same HttpOnly cookie the link sets, so the key is not kept by the page.
 */
export async function signInWithKey(key: string, baseUrl = ''): Promise<void> {
  const res = await fetch(`${baseUrl}/auth/signin`, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ key: key.trim() }),
  });
  if (res.ok) return;
  let message = `Sign-in failed (${res.status}).`;
  try {
    const body = (await res.json()) as { detail?: unknown };
    if (typeof body.detail === 'string') message = body.detail;
  } catch {
    // Not JSON: keep the status.
  }
  throw new Error(message);
}

/** How the service signs a browser in, and who this browser's session is (GET /auth/session). */
export interface SessionInfo {
  /** The organisation's single sign-on is configured: the sign-in page offers it. */
  single_sign_on: boolean;
  signed_in: 'single_sign_on' | 'key' | 'link' | null;
  user: { name: string; display_name: string | null; email: string | null } | null;
}

let sessionInfo: Promise<SessionInfo | null> | null = null;

/** Asked once per page load (a sign-in or sign-out reloads the page); null when the service cannot say. */
export function loadSessionInfo(baseUrl = ''): Promise<SessionInfo | null> {
  sessionInfo ??= fetch(`${baseUrl}/auth/session`, { credentials: 'same-origin' })
    .then((res) => (res.ok ? (res.json() as Promise<SessionInfo>) : null))
    .catch(() => null);
  return sessionInfo;
}

/** Ends this browser's session; resolves to where the browser goes next (the provider's sign-out, or the studio). */
export async function signOut(baseUrl = ''): Promise<string> {
  const res = await fetch(`${baseUrl}/auth/signout`, { method: 'POST', credentials: 'same-origin' });
  if (!res.ok) throw new Error(`Sign-out failed (${res.status}).`);
  const body = (await res.json()) as { next?: unknown };
  return typeof body.next === 'string' ? body.next : '/';
}
