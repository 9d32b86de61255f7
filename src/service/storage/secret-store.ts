import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Sql } from './sql/sql';

/**
 * Secrets every API node must share (the audio addresses' signing key), in the database they all read. The
 * `secrets` table is this store's alone.
 */
export interface SecretStore {
  /**
   * The secret named `name`. When there is none yet, `initial()` is stored first; if another node stored one
   * at the same moment, the first to commit wins and every caller gets that one.
   */
  readOrCreate(name: string, initial: () => Buffer): Promise<Buffer>;
}

export class SqlSecretStore implements SecretStore {
  constructor(private readonly sql: Sql) {}

  async readOrCreate(name: string, initial: () => Buffer): Promise<Buffer> {
    const existing = await this.read(name);
    if (existing) return existing;
    const value = initial();
    if (value.length === 0) throw new Error(`The secret ${name} cannot be empty.`);
    // Portable SQL (SQLite and PostgreSQL): a second node's insert does nothing, and both read the winner.
    await this.sql.run('INSERT INTO secrets (name, value, created_at) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING', [
      name,
      value.toString('base64'),
      new Date().toISOString(),
    ]);
    return (await this.read(name))!;
  }

  private async read(name: string): Promise<Buffer | null> {
    const row = await this.sql.get<{ value: string }>('SELECT value FROM secrets WHERE name = ?', [name]);
    return row ? Buffer.from(row.value, 'base64') : null;
  }
}

/** The name of the audio addresses' signing key (and of the file it was kept in before). */
export const AUDIO_URL_SECRET = 'audio-url';

/**
 * The signing key of audio addresses, from the database. On a desktop data folder from before, the key file
 * (`secrets/audio-url.key`) is moved into the database on the first start, so addresses already handed out
 * stay valid; the file goes once the database holds the key.
 */
export async function audioUrlSecret(secrets: SecretStore, secretsDir: string): Promise<Buffer> {
  const file = path.join(secretsDir, `${AUDIO_URL_SECRET}.key`);
  const secret = await secrets.readOrCreate(AUDIO_URL_SECRET, () => readIfPresent(file) ?? crypto.randomBytes(32));
  fs.rmSync(file, { force: true });
  return secret;
}

function readIfPresent(file: string): Buffer | null {
  try {
    const bytes = fs.readFileSync(file);
    return bytes.length > 0 ? bytes : null;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}
