import { expect, it } from 'vitest';
import { hashApiKey } from '../../src/service/auth/api-keys';
import { SqlBrowserSessionStore } from '../../src/service/storage/browser-sessions';
import { InvalidUserName, SqlKeyStore } from '../../src/service/storage/key-store';
import { SqlProjectStore } from '../../src/service/storage/project-store';
import { SqlSignInTokens } from '../../src/service/storage/sign-in-tokens';
import { eachBackend } from '../helpers/sql-backends';

// Keys, sign-in links and studio sessions: what every API node reads to let a request in.
eachBackend('KeyStore', (backend) => {
  it('stores only SHA-256 hashes: no column of the database holds the key or a piece of it', async () => {
    const { sql } = backend();
    const keys = new SqlKeyStore(sql);
    const { key } = await keys.create('script');
    const dump = JSON.stringify(await sql.all('SELECT * FROM api_keys'));
    expect(dump).toContain(hashApiKey(key).toString('hex'));
    expect(dump).not.toContain(key.slice(3));
    expect(dump).not.toContain(key.slice(7, -4));
    expect(await keys.isActive(key)).toBe(true);
    expect(await keys.isActive(key + 'x')).toBe(false);
  });

  it('gives each key its access: every project, or its own in the order given (the first its default)', async () => {
    const { sql } = backend();
    const projects = new SqlProjectStore(sql);
    const [a, b, c] = await Promise.all(['a', 'b', 'c'].map((key) => projects.create(key, key.toUpperCase())));
    const keys = new SqlKeyStore(sql);
    const owner = await keys.create('owner');
    const tool = await keys.create('tool', { user: 'ada', projectIds: [c!.id, a!.id] });
    expect(await keys.access(owner.key)).toMatchObject({ kind: 'all', keyId: owner.record.id, user: null });
    expect(await keys.access(tool.key)).toEqual({ kind: 'projects', keyId: tool.record.id, keyName: 'tool', user: 'ada', projectIds: [c!.id, a!.id] });
    expect(tool.record).toMatchObject({ user: 'ada', projects: ['c', 'a'] });
    expect((await keys.setProjects(tool.record.id, [b!.id]))?.projects).toEqual(['b']);
    expect(await keys.access(tool.key)).toMatchObject({ projectIds: [b!.id] });
    // A key limited to projects that are all gone sees nothing, never everything.
    expect((await keys.setProjects(tool.record.id, []))?.projects).toEqual([]);
    expect(await keys.access(tool.key)).toMatchObject({ kind: 'projects', projectIds: [] });
    expect((await keys.setProjects(tool.record.id, null))?.projects).toBeNull();
    expect(await keys.access(tool.key)).toMatchObject({ kind: 'all' });
    expect((await keys.revoke(tool.record.id.slice(0, 8)))?.revoked_at).not.toBeNull();
    expect(await keys.access(tool.key)).toBeNull();
    expect(await keys.accessById(tool.record.id)).toBeNull();
    expect(await keys.accessById(owner.record.id)).toMatchObject({ kind: 'all' });
    expect(await keys.users()).toEqual([expect.objectContaining({ name: 'ada', keys: 0 })]);
    expect((await keys.list()).map((k) => k.name)).toEqual(['owner', 'tool']);
  });

  it('answers keys asked for at once (many requests) each with its own access', async () => {
    const { sql } = backend();
    const projects = new SqlProjectStore(sql);
    const [a, b] = await Promise.all(['a', 'b'].map((key) => projects.create(key, key.toUpperCase())));
    const keys = new SqlKeyStore(sql);
    const owner = await keys.create('owner');
    const one = await keys.create('one', { projectIds: [b!.id, a!.id] });
    const two = await keys.create('two', { projectIds: [a!.id] });
    const gone = await keys.create('gone');
    await keys.revoke(gone.record.id);
    const asked = [one.key, owner.key, two.key, gone.key, 'tl_unknown', one.key];
    const answers = await Promise.all(asked.map((key) => keys.access(key)));
    expect(answers.map((x) => x && (x.kind === 'all' ? 'all' : x.projectIds))).toEqual([[b!.id, a!.id], 'all', [a!.id], null, null, [b!.id, a!.id]]);
    expect(answers.map((x) => x?.keyId ?? null)).toEqual([one.record.id, owner.record.id, two.record.id, null, null, one.record.id]);
    // By id (a studio signed in with a key), the same.
    const byId = await Promise.all([two.record.id, gone.record.id, one.record.id, 'nope'].map((id) => keys.accessById(id)));
    expect(byId).toEqual([answers[2], null, answers[0], null]);
  });

  it('files keys of one user under one user, and refuses an empty name', async () => {
    const keys = new SqlKeyStore(backend().sql);
    await Promise.all([keys.create('one', { user: 'ada' }), keys.create('two', { user: ' ada ' })]);
    expect(await keys.users()).toEqual([expect.objectContaining({ name: 'ada', keys: 2 })]);
    await expect(keys.create('three', { user: '  ' })).rejects.toBeInstanceOf(InvalidUserName);
    expect((await keys.list()).map((k) => k.name).sort()).toEqual(['one', 'two']);
  });

  it('matches a revoke or a change of projects only by a whole id or an unambiguous prefix', async () => {
    const keys = new SqlKeyStore(backend().sql);
    const { record } = await keys.create('tool');
    expect(await keys.revoke('abc')).toBeNull();
    expect(await keys.revoke('%%%%')).toBeNull();
    expect(await keys.setProjects('nope-nope', null)).toBeNull();
    expect((await keys.revoke(record.id))?.id).toBe(record.id);
  });

  it('takes a sign-in link once, stored hashed, and never after it expires', async () => {
    const { sql } = backend();
    const tokens = new SqlSignInTokens(sql);
    const token = await tokens.issue();
    expect(JSON.stringify(await sql.all('SELECT * FROM sign_in_tokens'))).not.toContain(token);
    // Another process (npm run keys -- signin, another API node) sharing the database sees the same tokens.
    const [first, second] = await Promise.all([new SqlSignInTokens(sql).consume(token), tokens.consume(token)]);
    expect([first, second].sort()).toEqual([false, true]);
    const old = await tokens.issue(Date.now() - 25 * 3600 * 1000);
    expect(await tokens.consume(old)).toBe(false);
    for (const bad of [undefined, '', 42, ['a'], 'x'.repeat(201)]) expect(await tokens.consume(bad)).toBe(false);
  });

  it("keeps a studio session with the key it signed in with, until it expires", async () => {
    const sessions = new SqlBrowserSessionStore(backend().sql);
    const owner = await sessions.create();
    const limited = await sessions.create(Date.now(), null);
    const old = await sessions.create(Date.now() - 31 * 24 * 3600 * 1000, null);
    expect(await sessions.keyOf(owner.token)).toBeNull();
    expect(await sessions.isValid(limited.token)).toBe(true);
    expect(await sessions.isValid(old.token)).toBe(false);
    expect(await sessions.keyOf('unknown')).toBeUndefined();
    // Asked at once (a studio's requests), each token gets its own answer; an expired one none.
    const keys = new SqlKeyStore(backend().sql);
    const tool = await keys.create('tool');
    const signedIn = await sessions.create(Date.now(), tool.record.id);
    const asked = [signedIn.token, owner.token, old.token, 'unknown', signedIn.token];
    expect(await Promise.all(asked.map((t) => sessions.keyOf(t)))).toEqual([tool.record.id, null, undefined, undefined, tool.record.id]);
  });
});
