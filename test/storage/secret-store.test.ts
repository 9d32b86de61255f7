import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { audioUrlSecret, SqlSecretStore } from '../../src/service/storage/secret-store';
import { eachBackend } from '../helpers/sql-backends';
import { tempDir } from '../helpers/temp';

// The secrets every API node must share: one stored value per name, whoever starts first.
eachBackend('SecretStore', (backend) => {
  it('creates a secret once; later callers get the stored one, not their own', async () => {
    const { sql } = backend();
    const secrets = new SqlSecretStore(sql);
    const first = await secrets.readOrCreate('audio-url', () => Buffer.from('first key bytes'));
    expect(first.toString()).toBe('first key bytes');
    let asked = false;
    const again = await secrets.readOrCreate('audio-url', () => {
      asked = true;
      return Buffer.from('second');
    });
    expect(again.equals(first)).toBe(true);
    expect(asked).toBe(false);
    expect((await secrets.readOrCreate('other', () => Buffer.from([0, 255, 1]))).equals(Buffer.from([0, 255, 1]))).toBe(true);
  });

  it('gives nodes starting at once the same secret, stored once', async () => {
    const { sql } = backend();
    const nodes = Array.from({ length: 6 }, () => new SqlSecretStore(sql));
    const got = await Promise.all(nodes.map((node, i) => node.readOrCreate('audio-url', () => Buffer.from(`node ${i}`))));
    expect(new Set(got.map((b) => b.toString())).size).toBe(1);
    expect(got[0]!.toString()).toMatch(/^node \d$/);
    expect(await sql.all('SELECT name FROM secrets')).toEqual([{ name: 'audio-url' }]);
  });

  it("moves a desktop folder's audio-address key file into the database, so addresses already signed stay valid", async () => {
    const { sql } = backend();
    const dir = tempDir('secrets-');
    const file = path.join(dir, 'audio-url.key');
    const old = Buffer.from('a key from before the database held it');
    fs.writeFileSync(file, old);
    expect((await audioUrlSecret(new SqlSecretStore(sql), dir)).equals(old)).toBe(true);
    expect(fs.existsSync(file)).toBe(false);
    expect((await audioUrlSecret(new SqlSecretStore(sql), dir)).equals(old)).toBe(true);
  });

  it('makes a fresh random 32-byte key when there is neither a row nor a file', async () => {
    const { sql } = backend();
    const dir = tempDir('secrets-');
    const key = await audioUrlSecret(new SqlSecretStore(sql), dir);
    expect(key.length).toBe(32);
    expect(fs.readdirSync(dir)).toEqual([]);
    expect((await audioUrlSecret(new SqlSecretStore(sql), dir)).equals(key)).toBe(true);
  });
});
