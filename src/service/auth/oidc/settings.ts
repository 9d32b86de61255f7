/** Single sign-on through the organisation's OpenID Connect provider, as configured (TAKELINE_OIDC_*). */
export interface OidcSettings {
  /** The issuer; its discovery document is at `<issuer>/.well-known/openid-configuration`. */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The id token claim that lists the user's groups (kept on the user for role mappings). */
  groupsClaim: string;
}

export const DEFAULT_GROUPS_CLAIM = 'groups';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

export class OidcSettingsError extends Error {}

/**
 * TAKELINE_OIDC_ISSUER, TAKELINE_OIDC_CLIENT_ID, TAKELINE_OIDC_CLIENT_SECRET, TAKELINE_OIDC_GROUPS_CLAIM: all
 * unset is no single sign-on; an issuer without its client (or the other way round) is a mistake, said at start.
 * The issuer must be https, except on loopback (a provider on the same machine, as the tests run one).
 */
export function parseOidcSettings(env: NodeJS.ProcessEnv): OidcSettings | null {
  const issuer = env.TAKELINE_OIDC_ISSUER?.trim() ?? '';
  const clientId = env.TAKELINE_OIDC_CLIENT_ID?.trim() ?? '';
  const clientSecret = env.TAKELINE_OIDC_CLIENT_SECRET?.trim() ?? '';
  const groupsClaim = env.TAKELINE_OIDC_GROUPS_CLAIM?.trim() || DEFAULT_GROUPS_CLAIM;
  if (!issuer && !clientId && !clientSecret) return null;
  const missing = [
    ['TAKELINE_OIDC_ISSUER', issuer],
    ['TAKELINE_OIDC_CLIENT_ID', clientId],
    ['TAKELINE_OIDC_CLIENT_SECRET', clientSecret],
  ]
    .filter(([, value]) => !value)
    .map(([name]) => name);
  if (missing.length > 0) throw new OidcSettingsError(`Single sign-on needs ${missing.join(' and ')} as well (or none of the TAKELINE_OIDC_ variables).`);
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    throw new OidcSettingsError(`TAKELINE_OIDC_ISSUER: "${issuer}" is not an address (https://login.example.com/realms/team).`);
  }
  if (url.search || url.hash || url.username || url.password) {
    throw new OidcSettingsError(`TAKELINE_OIDC_ISSUER: "${issuer}" must be the issuer's address, without query, fragment or credentials.`);
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK.has(url.hostname))) {
    throw new OidcSettingsError(`TAKELINE_OIDC_ISSUER must be an https:// address (http:// only on loopback), not "${issuer}".`);
  }
  if (!/^[\w.:/-]{1,100}$/.test(groupsClaim)) throw new OidcSettingsError(`TAKELINE_OIDC_GROUPS_CLAIM: "${groupsClaim}" is not a claim name.`);
  return { issuer, clientId, clientSecret, groupsClaim };
}

/** Whether requests to the issuer may be plain http (a provider on this machine only). */
export function isLoopbackIssuer(issuer: string): boolean {
  const url = new URL(issuer);
  return url.protocol === 'http:' && LOOPBACK.has(url.hostname);
}
