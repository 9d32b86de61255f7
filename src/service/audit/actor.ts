import { AsyncLocalStorage } from 'node:async_hooks';
import os from 'node:os';
import type { Access } from '../auth/access';
import { STUDIO_KEY_NAME } from '../auth/studio-key-name';

export type ActorKind = 'user' | 'key' | 'desktop' | 'console' | 'anonymous';

/** Who did something, as the audit trail and an edit's author record it. */
export interface Actor {
  readonly kind: ActorKind;
  /** What people read: the user's display name (else their name), the key's name, "the desktop". */
  readonly name: string;
  /** The user's name (the handle keys and the CLI use), when a user acted. */
  readonly user: string | null;
  readonly keyId: string | null;
  readonly keyName: string | null;
  /** The client's address, for requests. */
  readonly address: string | null;
}

export const DESKTOP_NAME = 'the desktop';

/**
 * The caller a request was authenticated as. The desktop is its studio (the key it makes for itself, or the
 * one-time link) and TAKELINE_API_KEY.
 */
export function actorOf(access: Access, address: string | null): Actor {
  const base = { user: access.user, keyId: access.keyId, keyName: access.keyName, address };
  if (access.user !== null) return { ...base, kind: 'user', name: access.userDisplayName || access.user };
  if (access.keyName !== null && access.keyName !== STUDIO_KEY_NAME) return { ...base, kind: 'key', name: access.keyName };
  return { ...base, kind: 'desktop', name: DESKTOP_NAME };
}

/** Who a note or an edit is attributed to: the user's display name (else name), else the key's name, else "the desktop". */
export function authorOf(access: Access): string {
  return actorOf(access, null).name;
}

/** Someone at the server's command line (`npm run keys`, `npm run users`): the account they ran it as. */
export function consoleActor(): Actor {
  let account = 'unknown';
  try {
    account = os.userInfo().username;
  } catch {
    // No passwd entry (some containers): the host alone.
  }
  return { kind: 'console', name: `${account}@${os.hostname()} (command line)`, user: null, keyId: null, keyName: null, address: null };
}

/** A request nobody is signed in for yet (a failed sign-in). */
export function anonymousActor(address: string | null): Actor {
  return { kind: 'anonymous', name: 'anonymous', user: null, keyId: null, keyName: null, address };
}

/** A client address without IPv4-mapped IPv6's prefix. */
export function clientAddress(remote: string | undefined): string | null {
  if (!remote) return null;
  return remote.startsWith('::ffff:') ? remote.slice(7) : remote;
}

/**
 * Who the current request (or the job it handed to a worker) acts for. Domain code (transcript edits, dubs)
 * knows no HTTP: what it records is attributed to this, set once per request after authentication and carried
 * into request work a worker runs (jobs/request-work.ts).
 */
const acting = new AsyncLocalStorage<Actor>();

export function actingAs<T>(actor: Actor, work: () => T): T {
  return acting.run(actor, work);
}

/** The actor of the work in progress; work started by nobody (a job the service queued itself) is the desktop's. */
export function currentActor(): Actor {
  return acting.getStore() ?? { kind: 'desktop', name: DESKTOP_NAME, user: null, keyId: null, keyName: null, address: null };
}

/** Only the actor that is set, for carrying it into a job's payload. */
export function actorIfSet(): Actor | undefined {
  return acting.getStore();
}
