import { expect, it } from 'vitest';
import { SqlBrowserSessionStore } from '../../src/service/storage/browser-sessions';
import { SqlKeyStore } from '../../src/service/storage/key-store';
import { SqlUserStore, type ProviderIdentity } from '../../src/service/storage/user-store';
import { eachBackend } from '../helpers/sql-backends';

const ada: ProviderIdentity = {
  issuer: 'https://login.example.org',
  subject: 'sub-ada',
  preferredName: 'ada',
  displayName: 'Ada Lovelace',
  email: 'ada@example.org',
  groups: ['editors'],
};

// Users as single sign-on makes and finds them, and the studio sessions signed in as one.
eachBackend('UserStore', (backend) => {
  it('makes a user at the first sign-in and finds the same one by issuer and subject after, with name, e-mail and groups refreshed', async () => {
    const users = new SqlUserStore(backend().sql);
    const first = await users.signIn(ada, Date.parse('2026-01-01T00:00:00Z'));
    expect(first).toMatchObject({ name: 'ada', displayName: 'Ada Lovelace', email: 'ada@example.org', groups: ['editors'], disabled: false, issuer: ada.issuer, subject: 'sub-ada' });
    const again = await users.signIn({ ...ada, preferredName: 'ada.l', email: 'ada@new.example.org', groups: ['editors', 'admins'] }, Date.parse('2026-02-01T00:00:00Z'));
    expect(again).toMatchObject({ id: first.id, name: 'ada', email: 'ada@new.example.org', groups: ['editors', 'admins'], lastSignInAt: '2026-02-01T00:00:00.000Z' });
    expect(await users.byId(first.id)).toEqual(again);
    // The same subject at another issuer is another person.
    const elsewhere = await users.signIn({ ...ada, issuer: 'https://other.example.org' });
    expect(elsewhere.id).not.toBe(first.id);
    expect(elsewhere.name).toBe('ada-2');
  });

  it("never takes over a key's user by name: a provider account named like one gets a name of its own", async () => {
    const { sql } = backend();
    const keys = new SqlKeyStore(sql);
    const { record } = await keys.create('laptop', { user: 'ada' });
    const users = new SqlUserStore(sql);
    const signedIn = await users.signIn(ada);
    expect(signedIn.name).toBe('ada-2');
    expect((await keys.list()).find((k) => k.id === record.id)?.user).toBe('ada');
    expect((await keys.users()).map((u) => u.name).sort()).toEqual(['ada', 'ada-2']);
  });

  it('makes one user when two nodes sign the same person in at once', async () => {
    const { sql } = backend();
    const made = await Promise.all([new SqlUserStore(sql).signIn(ada), new SqlUserStore(sql).signIn(ada)]);
    expect(made[0].id).toBe(made[1].id);
    expect(await sql.all('SELECT id FROM users')).toHaveLength(1);
  });

  it("ends a disabled user's sessions at their next request, and a session ends when signed out", async () => {
    const { sql } = backend();
    const users = new SqlUserStore(sql);
    const sessions = new SqlBrowserSessionStore(sql);
    const user = await users.signIn(ada);
    const { token } = await sessions.create(Date.now(), null, user.id);
    const link = await sessions.create();
    expect(await sessions.sessionOf(token)).toEqual({ keyId: null, user: { id: user.id, name: 'ada', disabled: false } });
    expect(await sessions.sessionOf(link.token)).toEqual({ keyId: null, user: null });
    expect((await users.setDisabled('ada', true))?.disabled).toBe(true);
    expect((await sessions.sessionOf(token))?.user).toMatchObject({ disabled: true });
    expect((await users.setDisabled('ada', false))?.disabled).toBe(false);
    expect(await users.setDisabled('nobody', true)).toBeNull();
    await sessions.remove(token);
    expect(await sessions.sessionOf(token)).toBeNull();
    expect(await sessions.isValid(link.token)).toBe(true);
  });
});
