import type { NewAuditEntry } from '../storage/audit-store';
import { anonymousActor, type Actor } from './actor';

/** How a studio or a client signed in: the organisation's provider, an API key on the sign-in page, the one-time link. */
export type SignInMethod = 'single_sign_on' | 'key' | 'link';

export function signedIn(actor: Actor, method: SignInMethod, detail: Record<string, unknown> = {}): NewAuditEntry {
  return { kind: 'signin', actor, object: actor.user ? { type: 'user', id: actor.user } : null, detail: { method, ...detail } };
}

/** A refused sign-in: nobody is known yet, only the address and why (never the key or token presented). */
export function signInFailed(address: string | null, method: SignInMethod, reason: string): NewAuditEntry {
  return { kind: 'signin.failed', actor: anonymousActor(address), detail: { method, reason } };
}
