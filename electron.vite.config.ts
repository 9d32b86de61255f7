import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import studio from './src/renderer/vite.config';

const root = import.meta.dirname;
const src = resolve(root, 'src');

/**
 * Main-process entries: the Electron entry plus every module of the service.
 *
 * The service is bundled into out/main with `preserveModules`, every service module an entry, so the source layout
 * survives: src/service/a/b.ts becomes out/main/service/a/b.js with relative imports intact. Today the service
 * spawns only system binaries (ffmpeg, pocketsphinx), but a worker thread or Node child process started from one
 * of its own files (by path, which no bundler follows) is then found at the same relative URL, provided the
 * module derives the extension from its own file rather than hard-coding '.ts':
 *
 *   const ext = extname(fileURLToPath(import.meta.url)); // '.ts' under tsx, '.js' in the build
 *   new Worker(new URL(`./decode-worker${ext}`, import.meta.url));
 *
 * (Workers and forks inherit the parent's execArgv, so under `node --import tsx` they load TypeScript too.)
 * Non-code files the service reads beside its sources are not copied; it should locate those from the repository
 * or resource root instead. Dependencies (better-sqlite3, onnxruntime-node and the rest of package.json
 * "dependencies") stay external — electron-vite's default `externalizeDeps` — and load from node_modules, which
 * native addons need.
 */
function mainEntries(): Record<string, string> {
  const entries: Record<string, string> = { index: join(src, 'main/index.ts') };
  const serviceDir = join(src, 'service');
  for (const file of readdirSync(serviceDir, { recursive: true, encoding: 'utf8' })) {
    if (!file.endsWith('.ts') || file.endsWith('.test.ts') || file.endsWith('.d.ts')) continue;
    const name = join('service', file.slice(0, -'.ts'.length)).split('\\').join('/');
    entries[name] = join(serviceDir, file);
  }
  return entries;
}

export default defineConfig({
  main: {
    build: {
      outDir: resolve(root, 'out/main'),
      rolldownOptions: {
        input: mainEntries(),
        output: {
          preserveModules: true,
          preserveModulesRoot: src,
          entryFileNames: '[name].js',
        },
      },
    },
  },
  preload: {
    build: {
      outDir: resolve(root, 'out/preload'),
      // Sandboxed preloads cannot be ES modules and can require nothing but 'electron': emit CommonJS
      // (out/preload/index.cjs for the studio, settings.cjs for the team server dialog) with every other import
      // bundled in.
      externalizeDeps: false,
      rolldownOptions: {
        input: { index: join(src, 'preload/index.ts'), settings: join(src, 'preload/settings.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  // The studio, built from its own standalone config (src/renderer/vite.config.ts: root, plugins, out/renderer) so
  // both builds stay the same. In the app the local service serves it (same origin as the API), not file://.
  renderer: {
    ...studio,
    build: { ...studio.build, rolldownOptions: { input: join(src, 'renderer/index.html') } },
  },
});
