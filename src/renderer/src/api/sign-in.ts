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
