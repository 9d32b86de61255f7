import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'src/**/*.test.tsx', 'test/**/*.test.ts', 'bench/**/*.test.ts'],
    // Integration suites start real services and decode real audio; two cores, so keep parallelism modest.
    maxWorkers: 2,
    // What a test prints is shown only when it fails: a passing run stays short (figures belong in bench/).
    silent: 'passed-only',
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // One temp folder per run for the integration tests' data folders and fixtures, removed afterwards.
    globalSetup: ['test/helpers/temp-root.ts'],
  },
});
