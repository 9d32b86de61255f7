import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { serviceStartOptions } from './service-options';

const log = () => {};

describe('serviceStartOptions', () => {
  it('uses a free port, the userData folder and the bundled studio', () => {
    const options = serviceStartOptions({
      env: { HOME: '/home/u', TAKELINE_PORT: '9000' },
      userDataDir: '/home/u/.config/Takeline',
      studioDir: '/app/out/renderer',
      log,
    });
    expect(options.port).toBe(0);
    expect(options.dataDir).toBe('/home/u/.config/Takeline');
    expect(options.env).toMatchObject({ HOME: '/home/u', TAKELINE_STUDIO_DIR: '/app/out/renderer' });
    expect(options.log).toBe(log);
  });

  it('lets the environment choose the data and studio folders', () => {
    const options = serviceStartOptions({
      env: { TAKELINE_DATA_DIR: 'rel/data', TAKELINE_STUDIO_DIR: '/dev/studio' },
      userDataDir: '/ud',
      studioDir: '/app/out/renderer',
      log,
    });
    expect(options.dataDir).toBe(resolve('rel/data'));
    expect(options.env.TAKELINE_STUDIO_DIR).toBe('/dev/studio');
  });

  it('does not modify the caller’s environment', () => {
    const env = { PATH: '/bin' };
    serviceStartOptions({ env, userDataDir: '/ud', studioDir: '/s', log });
    expect(env).toEqual({ PATH: '/bin' });
  });
});
