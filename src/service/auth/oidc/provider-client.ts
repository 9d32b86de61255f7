import * as client from 'openid-client';
import type { ProviderIdentity } from '../../storage/user-store';
import { isLoopbackIssuer, type OidcSettings } from './settings';
import { TRANSACTION_LIFETIME_MS, type SignInTransaction } from './transaction';

/** The scopes asked for: the id token, the user's name and handle, their e-mail. */
export const SCOPES = 'openid profile email';

/** The provider said no, or its answer did not pass the checks: the user is not signed in. The message says why. */
export class SignInRefused extends Error {}

/** The provider could not be reached (discovery, the token endpoint): nothing was decided, try again later. */
export class ProviderUnavailable extends Error {}

/**
 * The organisation's OpenID Connect provider, through openid-client: its metadata and keys from discovery,
 * the authorization code flow with PKCE, and the id token's checks (signature against the provider's keys,
 * issuer, audience, expiry, nonce; state on the way back), all done by the library.
 */
export class OidcProviderClient {
  private configuration: Promise<client.Configuration> | null = null;

  constructor(private readonly settings: OidcSettings) {}

  get issuer(): string {
    return this.settings.issuer;
  }

  /** Where to send the browser to sign in, and what the callback must find again. */
  async begin(redirectUri: string, now = Date.now()): Promise<{ url: string; transaction: SignInTransaction }> {
    const config = await this.config();
    const transaction: SignInTransaction = {
      state: client.randomState(),
      nonce: client.randomNonce(),
      codeVerifier: client.randomPKCECodeVerifier(),
      redirectUri,
      expiresAt: now + TRANSACTION_LIFETIME_MS,
    };
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: SCOPES,
      response_type: 'code',
      state: transaction.state,
      nonce: transaction.nonce,
      code_challenge: await client.calculatePKCECodeChallenge(transaction.codeVerifier),
      code_challenge_method: 'S256',
    });
    return { url: url.href, transaction };
  }

  /** The code in `callbackUrl` exchanged and its id token verified: who signed in. */
  async finish(callbackUrl: URL, transaction: SignInTransaction): Promise<ProviderIdentity> {
    const config = await this.config();
    let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
    try {
      tokens = await client.authorizationCodeGrant(config, callbackUrl, {
        pkceCodeVerifier: transaction.codeVerifier,
        expectedState: transaction.state,
        expectedNonce: transaction.nonce,
        idTokenExpected: true,
      });
    } catch (error) {
      throw refusal(error);
    }
    const claims = tokens.claims();
    if (!claims) throw new SignInRefused('The provider sent no id token.');
    return identityOf({ ...(await this.userInfo(config, tokens.access_token, claims.sub)), ...claims } as client.IDToken, this.settings.groupsClaim);
  }

  /**
   * The profile and e-mail claims from the userinfo endpoint (many providers put them only there, not in the id
   * token), checked to be the same subject's. Without them the id token's claims are enough to sign in.
   */
  private async userInfo(config: client.Configuration, accessToken: string, subject: string): Promise<Record<string, unknown>> {
    if (!config.serverMetadata().userinfo_endpoint || !accessToken) return {};
    try {
      return await client.fetchUserInfo(config, accessToken, subject);
    } catch {
      return {};
    }
  }

  /** The provider's end-session address (RP-initiated logout) back to `postLogoutRedirectUri`, or null when it has none. */
  async endSessionUrl(postLogoutRedirectUri: string): Promise<string | null> {
    const config = await this.config();
    if (!config.serverMetadata().end_session_endpoint) return null;
    return client.buildEndSessionUrl(config, { client_id: this.settings.clientId, post_logout_redirect_uri: postLogoutRedirectUri }).href;
  }

  /** Discovery once; a failed one is tried again at the next sign-in (the provider may have been down). */
  private config(): Promise<client.Configuration> {
    this.configuration ??= client
      .discovery(new URL(this.settings.issuer), this.settings.clientId, this.settings.clientSecret, undefined, {
        execute: isLoopbackIssuer(this.settings.issuer) ? [client.allowInsecureRequests] : [],
        timeout: 10,
      })
      .catch((error: unknown) => {
        this.configuration = null;
        throw new ProviderUnavailable(`The sign-in provider ${this.settings.issuer} could not be reached: ${messageOf(error)}`);
      });
    return this.configuration;
  }
}

/** The verified id token's claims as the identity a user is linked to. */
export function identityOf(claims: client.IDToken, groupsClaim: string): ProviderIdentity {
  const text = (value: unknown): string | null => (typeof value === 'string' && value.trim() ? value.trim() : null);
  const raw = claims[groupsClaim];
  const groups = Array.isArray(raw) ? raw.filter((g): g is string => typeof g === 'string') : typeof raw === 'string' ? [raw] : [];
  const email = text(claims.email);
  return {
    issuer: claims.iss,
    subject: claims.sub,
    preferredName: text(claims.preferred_username) ?? email ?? claims.sub,
    displayName: text(claims.name) ?? text(claims.preferred_username),
    email,
    groups,
  };
}

function refusal(error: unknown): Error {
  if (error instanceof client.AuthorizationResponseError) {
    return new SignInRefused(`The provider refused the sign-in (${error.error}${error.error_description ? `: ${error.error_description}` : ''}).`);
  }
  if (error instanceof client.ResponseBodyError) {
    return new SignInRefused(`The provider refused the sign-in code (${error.error}${error.error_description ? `: ${error.error_description}` : ''}).`);
  }
  // Network failures (fetch's TypeError, timeouts) decide nothing; every other check that failed is a refusal.
  const name = (error as { name?: string })?.name;
  if ((error instanceof TypeError && /fetch failed/i.test(error.message)) || name === 'TimeoutError' || name === 'AbortError') {
    return new ProviderUnavailable(`The sign-in provider could not be reached: ${messageOf(error)}`);
  }
  return new SignInRefused(`The provider's answer did not pass the checks: ${messageOf(error)}.`);
}

function messageOf(error: unknown): string {
  const cause = (error as { cause?: unknown })?.cause;
  const own = error instanceof Error ? error.message : String(error);
  return cause instanceof Error && !own.includes(cause.message) ? `${own} (${cause.message})` : own;
}
