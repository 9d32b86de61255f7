import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { serviceDir, serviceSources as sources } from './service-sources';

/** Where the environment may be read: the configuration's parser and the command-line entry points. */
const allowed = (file: string) => file === 'config.ts' || file.startsWith(`cli${path.sep}`);

describe('configuration is read once', () => {
  it('no service file outside config.ts and cli/ mentions process.env', () => {
    const files = sources();
    expect(files.length).toBeGreaterThan(100);
    const offenders = files.filter((file) => !allowed(file) && /process\s*\.\s*env\b|process\s*\[\s*['"]env['"]\s*\]/.test(fs.readFileSync(path.join(serviceDir, file), 'utf8')));
    expect(offenders, 'take the value from the parsed configuration (config.ts) instead').toEqual([]);
  });
});
