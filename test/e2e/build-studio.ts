/** Builds the studio (vite) into out/renderer, where the service serves it from `/`. */
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'vite';
import { repoRoot } from './service-process';

async function viteBuild(): Promise<void> {
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

/** How long a file waits for another's build before building itself (a worker that died mid-build leaves its lock). */
const LOCK_WAIT_MS = 300_000;

/**
 * Once per test run (the run's temp folder, test/helpers/temp-root.ts, says which): every end-to-end file asks
 * for the studio and two run at once, and a second build empties out/renderer while the other file's page loads
 * from it (a blank studio: its controls never appear). The first file builds behind a lock; the others wait for it.
 */
export async function buildStudio(): Promise<void> {
  const run = process.env.TAKELINE_TEST_TMP;
  if (!run) return viteBuild();
  const built = path.join(run, 'studio-built');
  const lock = path.join(run, 'studio-building');
  const deadline = Date.now() + LOCK_WAIT_MS;
  while (!fs.existsSync(built)) {
    try {
      fs.writeFileSync(lock, String(process.pid), { flag: 'wx' });
    } catch {
      if (Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        continue;
      }
    }
    try {
      if (!fs.existsSync(built)) {
        await viteBuild();
        fs.writeFileSync(built, '');
      }
    } finally {
      fs.rmSync(lock, { force: true });
    }
  }
}
