import { defineConfig } from 'vitest/config';

/** The repo's config includes only src/ and test/; this runs the studio benchmark's own unit tests. */
export default defineConfig({
  test: { root: new URL('../..', import.meta.url).pathname, include: ['bench/studio/**/*.test.ts'] },
});
