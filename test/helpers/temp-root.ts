import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Vitest global setup: one temp folder per test run, handed to the workers through the environment and
 * removed at the end. Integration tests restart services on the same data folder across steps, so single
 * tests cannot delete theirs; before this every run left ~25 folders (uploads, databases) in /tmp.
 */
export default function setup(): () => void {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'takeline-test-run-'));
  process.env.TAKELINE_TEST_TMP = root;
  return () => fs.rmSync(root, { recursive: true, force: true });
}
