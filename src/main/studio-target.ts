import type { SettingsLoad, StoredKey } from './desktop-settings';
import { revealKey, type SafeStorageLike } from './key-vault';
import { checkTeamServer, signInStudio, type Fetch, type StudioSessionCookie } from './team-server-client';

/**
 * What the studio window shows: the embedded service (started here, holding the data folder's lock) or a team
 * server (nothing started, no data folder touched). The rest of the app — window, menu, IPC, navigation
 * policy — works against this one shape.
 */
export interface StudioTarget {
  mode: 'embedded' | 'team';
  /** The origin the studio is served from: the only one the window and the IPC bridge trust. */
  url: string;
  /** The key the studio's requests carry (the bridge hands it to the renderer). */
  apiKey: string;
  /** The embedded service's data folder; null for a team server. */
  dataDir: string | null;
  /** Signs the studio in and gives the address the window loads. */
  entryUrl(): Promise<string>;
  /**
   * The address "Open Studio in Browser" opens: the embedded service's one-time sign-in link; a team server's
   * studio page, where the user signs in with their key (the desktop's session cookie is not the browser's).
   */
  browserUrl(): Promise<string>;
  /** Stops what was started: the embedded service; nothing for a team server. */
  stop(): Promise<void>;
}

export interface EmbeddedService {
  url: string;
  apiKey: string;
  signInUrl(): Promise<string>;
  stop(): Promise<void>;
}

export function embeddedTarget(service: EmbeddedService, dataDir: string): StudioTarget {
  return {
    mode: 'embedded',
    url: service.url,
    apiKey: service.apiKey,
    dataDir,
    entryUrl: () => service.signInUrl(),
    browserUrl: () => service.signInUrl(),
    stop: () => service.stop(),
  };
}

/**
 * A team server's studio, signed in with the user's key at every window it opens (a session per window is
 * cheap, and a key revoked meanwhile fails here with a clear message rather than on a blank studio).
 */
export function teamTarget(
  origin: string,
  key: string,
  deps: { fetch: Fetch; setCookie(origin: string, cookie: StudioSessionCookie): Promise<void> },
): StudioTarget {
  return {
    mode: 'team',
    url: origin,
    apiKey: key,
    dataDir: null,
    entryUrl: async () => {
      await deps.setCookie(origin, await signInStudio(origin, key, deps.fetch));
      return `${origin}/`;
    },
    browserUrl: async () => `${origin}/`,
    stop: async () => {},
  };
}

/** What starting does, decided from the settings file alone (before Electron is ready). */
export type StartupPlan =
  | { mode: 'embedded'; notice: string | null }
  | { mode: 'team'; origin: string; key: StoredKey };

export function planStartup(load: SettingsLoad): StartupPlan {
  if (load.problem !== null) {
    return {
      mode: 'embedded',
      notice: `Takeline’s desktop settings could not be used, so the studio runs on the embedded service this time.\n\n${load.problem}\n\nThe file is left as it is; choosing a server in File › Studio Server saves new settings and keeps the old file beside them.`,
    };
  }
  const { settings } = load;
  if (settings.server === 'team' && settings.team) return { mode: 'team', origin: settings.team.url, key: settings.team.key };
  return { mode: 'embedded', notice: null };
}

/** The user's answer when the team server cannot be used at start. */
export type TeamProblemChoice = 'retry' | 'embedded' | 'quit';

export class StartCancelled extends Error {
  override name = 'StartCancelled';
}

export interface TeamStartDeps {
  safe: SafeStorageLike;
  fetch: Fetch;
  setCookie(origin: string, cookie: StudioSessionCookie): Promise<void>;
  startEmbedded(): Promise<StudioTarget>;
  /** Tells the user why the team server cannot be used and asks what to do. */
  ask(message: string): Promise<TeamProblemChoice>;
  log(line: string): void;
}

/**
 * Starts on the team server the settings name: the key is decrypted and checked against the server first, so a
 * server that is down or a key that was revoked is said plainly, with the choice to try again, use the embedded
 * service this time (the settings stay as they are) or quit.
 */
export async function startTeam(plan: Extract<StartupPlan, { mode: 'team' }>, deps: TeamStartDeps): Promise<StudioTarget> {
  for (;;) {
    let problem: string;
    try {
      const key = await revealKey(plan.key, deps.safe);
      const check = await checkTeamServer({ url: plan.origin, key }, deps.fetch);
      if (check.ok) {
        deps.log(`team server ${check.origin}: the key sees ${check.projects} project(s)`);
        return teamTarget(check.origin, check.key, deps);
      }
      problem = check.message;
    } catch (error) {
      problem = (error as Error).message;
    }
    deps.log(`team server ${plan.origin} cannot be used: ${problem}`);
    const choice = await deps.ask(problem);
    if (choice === 'embedded') return deps.startEmbedded();
    if (choice === 'quit') throw new StartCancelled('the user chose to quit');
  }
}
