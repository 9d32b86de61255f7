import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A fresh directory inside this test run's temp folder (test/helpers/temp-root.ts removes it at the end). */
export function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(process.env.TAKELINE_TEST_TMP ?? os.tmpdir(), prefix));
}
