import crypto from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openDatabase } from './database';
import { KeyStore } from './key-store';
import { SqlProjectStore } from './project-store';
import { SqliteSql } from './sql/sqlite-sql';
import { SignInTokens } from '../auth/sign-in';
import { generateApiKey, hashApiKey, matchKeyHash } from '../auth/api-keys';

describe('KeyStore', () => {
  afterEach(() => vi.restoreAllMocks());

  it('stores only SHA-256 hashes: no column of the database holds the key or a piece of it', () => {
    const db = openDatabase(':memory:');
    const keys = new KeyStore(db);
    const { key } = keys.create('script');
    const dump = JSON.stringify(db.prepare('SELECT * FROM api_keys').all());
    expect(dump).toContain(hashApiKey(key).toString('hex'));
    expect(dump).not.toContain(key.slice(3));
    expect(dump).not.toContain(key.slice(7, -4));
    expect(keys.isActive(key)).toBe(true);
    expect(keys.isActive(key + 'x')).toBe(false);
    db.close();
  });

  it('gives each key its access: every project, or its own in the order given (the first its default)', async () => {
    const db = openDatabase(':memory:');
    const projects = new SqlProjectStore(new SqliteSql(db), db);
    const [a, b, c] = await Promise.all(['a', 'b', 'c'].map((key) => projects.create(key, key.toUpperCase())));
    const keys = new KeyStore(db);
    const owner = keys.create('owner');
    const tool = keys.create('tool', { user: 'ada', projectIds: [c!.id, a!.id] });
    expect(keys.access(owner.key)).toMatchObject({ kind: 'all', keyId: owner.record.id, user: null });
    expect(keys.access(tool.key)).toEqual({ kind: 'projects', keyId: tool.record.id, keyName: 'tool', user: 'ada', projectIds: [c!.id, a!.id] });
    expect(tool.record).toMatchObject({ user: 'ada', projects: ['c', 'a'] });
    expect(keys.setProjects(tool.record.id, [b!.id])?.projects).toEqual(['b']);
    expect(keys.access(tool.key)).toMatchObject({ projectIds: [b!.id] });
    // A key limited to projects that are all gone sees nothing, never everything.
    expect(keys.setProjects(tool.record.id, [])?.projects).toEqual([]);
    expect(keys.access(tool.key)).toMatchObject({ kind: 'projects', projectIds: [] });
    expect(keys.setProjects(tool.record.id, null)?.projects).toBeNull();
    expect(keys.access(tool.key)).toMatchObject({ kind: 'all' });
    keys.revoke(tool.record.id);
    expect(keys.access(tool.key)).toBeNull();
    expect(keys.accessById(tool.record.id)).toBeNull();
    expect(keys.accessById(owner.record.id)).toMatchObject({ kind: 'all' });
    expect(keys.users()).toEqual([expect.objectContaining({ name: 'ada', keys: 0 })]);
    db.close();
  });

  it('compares in constant time: every stored hash is compared, whichever matches (or none)', () => {
    const stored = Array.from({ length: 5 }, () => generateApiKey());
    const hashes = stored.map(hashApiKey);
    const compare = vi.spyOn(crypto, 'timingSafeEqual');
    for (const presented of [stored[0]!, stored[4]!, generateApiKey(), '', 'x'.repeat(10_000)]) {
      compare.mockClear();
      matchKeyHash(presented, hashes);
      expect(compare).toHaveBeenCalledTimes(hashes.length);
    }
  });
});

describe('SignInTokens', () => {
  it('are good once, stored hashed, and expire', () => {
    const db = openDatabase(':memory:');
    const tokens = new SignInTokens(db);
    const token = tokens.issue();
    expect(JSON.stringify(db.prepare('SELECT * FROM sign_in_tokens').all())).not.toContain(token);
    // Another process (npm run keys -- signin) sharing the database sees the same tokens.
    expect(new SignInTokens(db).consume(token)).toBe(true);
    expect(tokens.consume(token)).toBe(false);
    const old = tokens.issue(Date.now() - 25 * 3600 * 1000);
    expect(tokens.consume(old)).toBe(false);
    for (const bad of [undefined, '', 42, ['a'], 'x'.repeat(201)]) expect(tokens.consume(bad)).toBe(false);
    db.close();
  });
});
