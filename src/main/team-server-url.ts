/**
 * The address a desktop user types for a team server, checked before anything is sent to it. The studio
 * calls the API at absolute paths (`/v1/…`, `/auth/…`), so a team server is an origin: a path, query or
 * fragment would be silently ignored, and credentials in the address would end up in logs and history.
 */
export type ServerUrlCheck = { ok: true; origin: string } | { ok: false; message: string };

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

export function checkServerUrl(input: string): ServerUrlCheck {
  const text = input.trim();
  if (text === '') return { ok: false, message: 'Enter the team server’s address, e.g. https://takeline.example.com.' };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, message: `“${text}” is not an address; write it with its scheme, e.g. https://${text}.` };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return { ok: false, message: `A team server is reached over https: or http:, not ${url.protocol}.` };
  }
  if (url.username !== '' || url.password !== '') {
    return { ok: false, message: 'Leave the user name and password out of the address; the API key is entered separately.' };
  }
  if ((url.pathname !== '/' && url.pathname !== '') || url.search !== '' || url.hash !== '') {
    return {
      ok: false,
      message: `Give the server’s address without a path, query or fragment (${url.origin}): the studio and its API are at the server’s root.`,
    };
  }
  return { ok: true, origin: url.origin };
}

/** Plain http: sends the API key readable on the network, except to this machine. */
export function isCleartextRemote(origin: string): boolean {
  const url = new URL(origin);
  return url.protocol === 'http:' && !LOOPBACK_HOSTS.has(url.hostname);
}

/** What a well-formed Takeline key looks like (the service's own rule: `tl_` and at least 32 letters/digits). */
export function checkApiKey(input: string): { ok: true; key: string } | { ok: false; message: string } {
  const key = input.trim();
  if (key === '') return { ok: false, message: 'Enter your API key (ask whoever runs the team server for one).' };
  // The service's own rule (auth/api-keys.ts KEY_PATTERN); its sign-in takes keys up to 200 characters.
  if (!/^tl_[A-Za-z0-9]{32,}$/.test(key) || key.length > 200) {
    return { ok: false, message: 'An API key is “tl_” followed by at least 32 letters and digits; check that it was copied whole.' };
  }
  return { ok: true, key };
}
