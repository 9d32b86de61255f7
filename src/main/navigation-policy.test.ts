import { describe, expect, it, vi } from 'vitest';
import {
  applyNavigationPolicy,
  decideNavigation,
  isPermissionGranted,
  isTrustedUrl,
  originOf,
  type PolicedContents,
  type WindowOpenResponse,
} from './navigation-policy';

const SERVICE = 'http://127.0.0.1:43123';

describe('decideNavigation', () => {
  it('allows only the service origin', () => {
    expect(decideNavigation(`${SERVICE}/sessions/abc?x=1#t`, SERVICE)).toBe('allow');
    expect(decideNavigation(`${SERVICE}/`, `${SERVICE}/auth/signin?token=t`)).toBe('allow');
  });

  it('sends other web and mail links to the system browser', () => {
    expect(decideNavigation('https://example.com/docs', SERVICE)).toBe('open-external');
    expect(decideNavigation('mailto:team@example.com', SERVICE)).toBe('open-external');
    // Same host, other port or scheme is another origin.
    expect(decideNavigation('http://127.0.0.1:8080/', SERVICE)).toBe('open-external');
    expect(decideNavigation('http://localhost:43123/', SERVICE)).toBe('open-external');
  });

  it('trusts a team server’s origin, and then not the embedded service’s', () => {
    const TEAM = 'https://takeline.example.com';
    expect(decideNavigation(`${TEAM}/sessions/abc`, TEAM)).toBe('allow');
    expect(decideNavigation('https://takeline.example.com:443/', TEAM)).toBe('allow');
    expect(decideNavigation('http://takeline.example.com/', TEAM)).toBe('open-external'); // other scheme
    expect(decideNavigation('https://evil.takeline.example.com/', TEAM)).toBe('open-external');
    expect(decideNavigation(`${SERVICE}/`, TEAM)).toBe('open-external');
    expect(isPermissionGranted('fullscreen', `${TEAM}/`, TEAM)).toBe(true);
    expect(isPermissionGranted('fullscreen', `${SERVICE}/`, TEAM)).toBe(false);
  });

  it('refuses everything else', () => {
    for (const url of [
      'file:///etc/passwd',
      'javascript:alert(1)',
      'data:text/html,hi',
      'about:blank',
      'not a url',
    ]) {
      expect(decideNavigation(url, SERVICE)).toBe('deny');
    }
  });
});

describe('origins', () => {
  it('treats opaque origins as untrusted', () => {
    expect(originOf('file:///tmp/x')).toBeNull();
    expect(originOf('garbage')).toBeNull();
    expect(isTrustedUrl('file:///tmp/x', 'file:///tmp/y')).toBe(false);
  });
});

describe('isPermissionGranted', () => {
  it('grants the small allow-list to the service only', () => {
    expect(isPermissionGranted('clipboard-sanitized-write', `${SERVICE}/`, SERVICE)).toBe(true);
    expect(isPermissionGranted('media', `${SERVICE}/`, SERVICE)).toBe(false);
    expect(isPermissionGranted('clipboard-sanitized-write', 'https://evil.example/', SERVICE)).toBe(false);
  });

  it('grants the microphone alone to the studio (recording a dub line), never the camera', () => {
    expect(isPermissionGranted('media', `${SERVICE}/`, SERVICE, ['audio'])).toBe(true);
    expect(isPermissionGranted('media', `${SERVICE}/`, SERVICE, ['audio', 'video'])).toBe(false);
    expect(isPermissionGranted('media', `${SERVICE}/`, SERVICE, ['video'])).toBe(false);
    expect(isPermissionGranted('media', 'https://evil.example/', SERVICE, ['audio'])).toBe(false);
  });
});

function fakeContents() {
  const listeners = new Map<string, (event: { url: string; preventDefault(): void }) => void>();
  let openHandler: ((details: { url: string }) => WindowOpenResponse) | undefined;
  const contents: PolicedContents = {
    on: (event: string, listener: (event: { url: string; preventDefault(): void }) => void) =>
      listeners.set(event, listener),
    setWindowOpenHandler: (handler) => {
      openHandler = handler;
    },
  };
  const fire = (name: string, url = '') => {
    const event = { url, preventDefault: vi.fn() };
    listeners.get(name)?.(event);
    return event.preventDefault;
  };
  return { contents, fire, open: (url: string) => openHandler?.({ url }) };
}

describe('applyNavigationPolicy', () => {
  const setup = () => {
    const fake = fakeContents();
    const openExternal = vi.fn();
    const childWindowOptions = vi.fn(() => ({ show: false }));
    applyNavigationPolicy(fake.contents, { trustedOrigin: SERVICE, openExternal, childWindowOptions });
    return { ...fake, openExternal, childWindowOptions };
  };

  it('lets in-app navigation through', () => {
    const { fire, openExternal } = setup();
    expect(fire('will-navigate', `${SERVICE}/projects`)).not.toHaveBeenCalled();
    expect(fire('will-redirect', `${SERVICE}/`)).not.toHaveBeenCalled();
    expect(openExternal).not.toHaveBeenCalled();
  });

  it('stops navigation away and opens web links externally', () => {
    const { fire, openExternal } = setup();
    expect(fire('will-navigate', 'https://example.com/')).toHaveBeenCalledOnce();
    expect(openExternal).toHaveBeenCalledWith('https://example.com/');
    expect(fire('will-redirect', 'file:///etc/hosts')).toHaveBeenCalledOnce();
    expect(openExternal).toHaveBeenCalledTimes(1);
  });

  it('refuses webviews', () => {
    const { fire } = setup();
    expect(fire('will-attach-webview')).toHaveBeenCalledOnce();
  });

  it('allows same-origin pop-ups with locked-down options and denies the rest', () => {
    const { open, openExternal, childWindowOptions } = setup();
    expect(open(`${SERVICE}/export`)).toEqual({
      action: 'allow',
      overrideBrowserWindowOptions: { show: false },
    });
    expect(childWindowOptions).toHaveBeenCalledOnce();
    expect(open('https://example.com/help')).toEqual({ action: 'deny' });
    expect(openExternal).toHaveBeenCalledWith('https://example.com/help');
    expect(open('javascript:void(0)')).toEqual({ action: 'deny' });
    expect(openExternal).toHaveBeenCalledTimes(1);
  });
});
