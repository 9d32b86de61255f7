import type { BrowserWindowConstructorOptions } from 'electron';

/**
 * Where studio web content may go. Only the local service's origin is trusted; links elsewhere open in the
 * system browser, and anything that is not a plain web or mail link is refused.
 */
export type NavigationDecision = 'allow' | 'open-external' | 'deny';

const EXTERNAL_PROTOCOLS = new Set(['http:', 'https:', 'mailto:']);

export function originOf(url: string): string | null {
  try {
    const parsed = new URL(url);
    // Opaque origins ('null': file:, data:, about:) never match anything.
    return parsed.origin === 'null' ? null : parsed.origin;
  } catch {
    return null;
  }
}

export function isTrustedUrl(url: string, trustedOrigin: string): boolean {
  const origin = originOf(url);
  return origin !== null && origin === originOf(trustedOrigin);
}

export function decideNavigation(url: string, trustedOrigin: string): NavigationDecision {
  if (isTrustedUrl(url, trustedOrigin)) return 'allow';
  let protocol: string;
  try {
    protocol = new URL(url).protocol;
  } catch {
    return 'deny';
  }
  return EXTERNAL_PROTOCOLS.has(protocol) ? 'open-external' : 'deny';
}

/** The slice of Electron's WebContents the policy uses, so it can be exercised with a fake. */
export interface PolicedContents {
  on(
    event: 'will-navigate' | 'will-redirect',
    listener: (event: { url: string; preventDefault(): void }) => void,
  ): unknown;
  on(event: 'will-attach-webview', listener: (event: { preventDefault(): void }) => void): unknown;
  setWindowOpenHandler(handler: (details: { url: string }) => WindowOpenResponse): void;
}

export type WindowOpenResponse =
  { action: 'deny' } | { action: 'allow'; overrideBrowserWindowOptions?: BrowserWindowConstructorOptions };

export interface NavigationPolicyOptions {
  /** The service origin (or any URL on it). */
  trustedOrigin: string;
  /** Opens a URL in the system browser (shell.openExternal). */
  openExternal(url: string): void;
  /** Options for same-origin pop-ups, so they get the same locked-down webPreferences. */
  childWindowOptions(): BrowserWindowConstructorOptions;
  log?(line: string): void;
}

export function applyNavigationPolicy(contents: PolicedContents, options: NavigationPolicyOptions): void {
  const route = (url: string): boolean => {
    const decision = decideNavigation(url, options.trustedOrigin);
    if (decision === 'open-external') options.openExternal(url);
    if (decision === 'deny') options.log?.(`blocked navigation to ${url}`);
    return decision === 'allow';
  };

  const guard = (event: { url: string; preventDefault(): void }): void => {
    if (!route(event.url)) event.preventDefault();
  };
  contents.on('will-navigate', guard);
  // Server redirects do not raise will-navigate; a same-origin page must not bounce the window elsewhere.
  contents.on('will-redirect', guard);
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) =>
    route(url)
      ? { action: 'allow', overrideBrowserWindowOptions: options.childWindowOptions() }
      : { action: 'deny' },
  );
}

/** Permissions the studio may be granted (everything else, e.g. camera, geolocation, is refused). */
const GRANTED_PERMISSIONS = new Set(['clipboard-sanitized-write', 'fullscreen']);

/**
 * `media` is granted for audio capture alone (recording a dub line from the microphone): a request that
 * names no media type, or any video, is refused, so the camera stays off.
 */
export function isPermissionGranted(
  permission: string,
  requestingUrl: string,
  trustedOrigin: string,
  mediaTypes: readonly string[] = [],
): boolean {
  if (!isTrustedUrl(requestingUrl, trustedOrigin)) return false;
  if (permission === 'media') return mediaTypes.length > 0 && mediaTypes.every((t) => t === 'audio');
  return GRANTED_PERMISSIONS.has(permission);
}
