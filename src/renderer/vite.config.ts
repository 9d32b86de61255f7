// Standalone build of the studio (the service serves out/renderer at `/`). electron.vite.config.ts builds
// the same sources for Electron.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

const root = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root,
  // Relative asset paths work both from the service's `/` and from a file:// page.
  base: './',
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('../../out/renderer', import.meta.url)),
    emptyOutDir: true,
    sourcemap: true,
    target: 'es2022',
  },
  server: {
    // `npx vite --config src/renderer/vite.config.ts` during development, against `npm run serve` on 8787.
    proxy: {
      '/v1': 'http://127.0.0.1:8787',
      '/auth': 'http://127.0.0.1:8787',
      '/media': 'http://127.0.0.1:8787',
    },
  },
});
