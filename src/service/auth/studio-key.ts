import fs from 'node:fs';
import path from 'node:path';
import type { KeyStore } from '../storage/key-store';
import { writeFileAtomic } from '../storage/files';

import { STUDIO_KEY_NAME } from './studio-key-name';

export { STUDIO_KEY_NAME };

/**
 * The key the studio uses. With no key configured, the first start creates one, prints it once and keeps
 * it in the data folder (owner-only file) where the desktop shell reads it; the database holds only its
 * hash. If that key was revoked or the file lost, a new one is made and printed.
 */
export async function ensureStudioKey(keys: KeyStore, secretsDir: string, print: (line: string) => void): Promise<string> {
  const file = path.join(secretsDir, 'studio-api-key');
  let key: string | null = null;
  try {
    key = fs.readFileSync(file, 'utf8').trim();
  } catch {
    key = null;
  }
  if (key && (await keys.isActive(key))) return key;
  const created = await keys.create(STUDIO_KEY_NAME);
  writeFileAtomic(file, created.key + '\n', 0o600);
  print(`takeline created an API key (shown once; the studio reads it from ${file}): ${created.key}`);
  return created.key;
}
