import { expect, it } from 'vitest';
import { SqlAuditStore } from '../../src/service/storage/audit-store';
import { SqlKeyStore } from '../../src/service/storage/key-store';
import { SqlProjectStore } from '../../src/service/storage/project-store';
import { SqlUserStore } from '../../src/service/storage/user-store';
import { actingAs, consoleActor, type Actor } from '../../src/service/audit/actor';
import { roleChanged } from '../../src/service/audit/user-events';
import { eachBackend } from '../helpers/sql-backends';

const ada: Actor = { kind: 'user', name: 'Ada Lovelace', user: 'ada', keyId: null, keyName: null, address: '10.0.0.7' };
const ci: Actor = { kind: 'key', name: 'ci', user: null, keyId: 'k-1', keyName: 'ci', address: '10.0.0.9' };

// The audit trail's contract: entries are added and listed, newest first, by user, project, kind and time.
eachBackend('AuditStore', (backend) => {
  it('lists entries newest first (in the order of making within a millisecond), with who, where, what and which project', async () => {
    const audit = new SqlAuditStore(backend().sql);
    const at = new Date('2026-12-01T10:00:00.000Z');
    await audit.append({ kind: 'signin', actor: ada, at, detail: { method: 'single_sign_on' } });
    await audit.append({ kind: 'recording.created', actor: ada, at, project: { id: 'p-1', key: 'news' }, object: { type: 'recording', id: 'r-1' } });
    await audit.append({ kind: 'transcript.revised', actor: ci, at: new Date('2026-12-01T11:00:00.000Z'), project: { id: 'p-1', key: 'news' }, object: { type: 'recording', id: 'r-1' }, detail: { revision: 1 } });
    const { data, total } = await audit.list({ limit: 10, offset: 0 });
    expect(total).toBe(3);
    expect(data.map((e) => e.kind)).toEqual(['transcript.revised', 'recording.created', 'signin']);
    expect(data[0]).toMatchObject({
      at: '2026-12-01T11:00:00.000Z',
      actor: { kind: 'key', name: 'ci', user: null, key_id: 'k-1', key_name: 'ci' },
      address: '10.0.0.9',
      project: { id: 'p-1', key: 'news' },
      object: { type: 'recording', id: 'r-1' },
      detail: { revision: 1 },
    });
    expect(data[2]).toMatchObject({ actor: { kind: 'user', name: 'Ada Lovelace', user: 'ada' }, project: null, object: null, detail: { method: 'single_sign_on' } });
  });

  it('filters by user, project (id or key), kind and time range, and pages', async () => {
    const audit = new SqlAuditStore(backend().sql);
    for (let i = 0; i < 5; i++) {
      await audit.append({ kind: 'recording.exported', actor: i % 2 ? ci : ada, at: new Date(Date.UTC(2026, 11, 1 + i)), project: { id: `p-${i % 2}`, key: `k${i % 2}` } });
    }
    await audit.append({ kind: 'signin.failed', actor: { ...ada, kind: 'anonymous', name: 'anonymous', user: null }, at: new Date(Date.UTC(2026, 11, 3, 12)) });
    const days = async (filter: Parameters<SqlAuditStore['list']>[0]) => (await audit.list(filter)).data.map((e) => e.at.slice(0, 13));
    expect(await days({ user: 'ada', limit: 10, offset: 0 })).toEqual(['2026-12-05T00', '2026-12-03T00', '2026-12-01T00']);
    expect(await days({ project: 'k1', limit: 10, offset: 0 })).toEqual(['2026-12-04T00', '2026-12-02T00']);
    expect(await days({ project: 'p-1', limit: 10, offset: 0 })).toEqual(['2026-12-04T00', '2026-12-02T00']);
    expect(await days({ kind: 'signin.failed', limit: 10, offset: 0 })).toEqual(['2026-12-03T12']);
    expect(await days({ since: '2026-12-02T00:00:00Z', until: '2026-12-04T00:00:00+00:00', limit: 10, offset: 0 })).toEqual(['2026-12-03T12', '2026-12-03T00', '2026-12-02T00']);
    const page = await audit.list({ limit: 2, offset: 2 });
    expect(page.total).toBe(6);
    expect(page.data.map((e) => e.at.slice(0, 13))).toEqual(['2026-12-03T12', '2026-12-03T00']);
  });

  it('keys created, revoked and re-scoped are recorded with the change; a second revoke records nothing', async () => {
    const { sql } = backend();
    const keys = new SqlKeyStore(sql);
    const project = await actingAs(ada, () => new SqlProjectStore(sql).create('news', 'News'));
    const { key, record } = await keys.create('laptop', { user: 'grace', by: consoleActor() });
    await keys.setProjects(record.id, [project.id], ci);
    await keys.revoke(record.id, ci);
    await keys.revoke(record.id, ci);
    const { data } = await new SqlAuditStore(sql).list({ limit: 10, offset: 0 });
    expect(data.map((e) => e.kind)).toEqual(['key.revoked', 'key.projects_changed', 'key.created', 'project.created']);
    expect(data[2]).toMatchObject({ actor: { kind: 'console' }, object: { type: 'key', id: record.id }, detail: { name: 'laptop', hint: record.hint, user: 'grace' } });
    expect(data[1]!.detail).toMatchObject({ projects: [project.id] });
    expect(data[3]).toMatchObject({ actor: { name: 'Ada Lovelace' }, project: { id: project.id, key: 'news' } });
    // Never the key itself.
    expect(JSON.stringify(data)).not.toContain(key);
  });

  it('a change whose audit entry cannot be written is not made (same transaction)', async () => {
    const { sql } = backend();
    await sql.run('DROP TABLE audit_log');
    const keys = new SqlKeyStore(sql);
    await expect(keys.create('laptop')).rejects.toThrow();
    expect(await keys.list()).toEqual([]);
    await expect(new SqlProjectStore(sql).create('news', 'News')).rejects.toThrow();
    expect(await new SqlProjectStore(sql).list()).toEqual([]);
  });

  it('users disabled and enabled, and roles changed, are recorded', async () => {
    const { sql } = backend();
    const users = new SqlUserStore(sql);
    await users.signIn({ issuer: 'https://idp', subject: 's', preferredName: 'ada', displayName: 'Ada', email: null, groups: [] });
    await users.setDisabled('ada', true, ci);
    await users.setDisabled('ada', true, ci);
    await users.setDisabled('ada', false, ci);
    const audit = new SqlAuditStore(sql);
    await sql.transaction((tx) => new SqlAuditStore(tx).append(roleChanged(ci, 'ada', { role: 'editor', previous: 'viewer', project: { id: 'p-1', key: 'news' } })));
    const { data } = await audit.list({ limit: 10, offset: 0 });
    expect(data.map((e) => e.kind)).toEqual(['role.changed', 'user.enabled', 'user.disabled']);
    expect(data[0]).toMatchObject({ object: { type: 'user', id: 'ada' }, project: { key: 'news' }, detail: { role: 'editor', previous: 'viewer', scope: 'project' } });
  });
});
