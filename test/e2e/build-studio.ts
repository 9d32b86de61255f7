/** Builds the studio (vite) into out/renderer, where the service serves it from `/`. */
import path from 'node:path';
import { build } from 'vite';
import { repoRoot } from './service-process';

export async function buildStudio(): Promise<void> {
  // Vitest sets NODE_ENV=test, which would make vite bundle React's development build.
  const previous = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await build({
      configFile: path.join(repoRoot, 'src/renderer/vite.config.ts'),
      mode: 'production',
      logLevel: 'warn',
    });
  } finally {
    process.env.NODE_ENV = previous;
  }
}
