import { describe, expect, it } from 'vitest';
import { createWindowOptions } from './window-options';

describe('createWindowOptions', () => {
  it('locks the renderer down and wires the preload', () => {
    const options = createWindowOptions({ preloadPath: '/app/out/preload/index.cjs' });
    expect(options.webPreferences).toMatchObject({
      preload: '/app/out/preload/index.cjs',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
    });
  });

  it('waits for ready-to-show and names the window', () => {
    const options = createWindowOptions({ preloadPath: '/p.cjs', title: 'Takeline — test' });
    expect(options.show).toBe(false);
    expect(options.title).toBe('Takeline — test');
    expect(options).not.toHaveProperty('icon');
    expect(createWindowOptions({ preloadPath: '/p.cjs', icon: '/icon.png' }).icon).toBe('/icon.png');
  });
});
