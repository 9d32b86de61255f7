import { describe, expect, it } from 'vitest';
import { identityOf } from './provider-client';

const base = { iss: 'https://login.example.org', sub: 's-1', aud: 'takeline', iat: 1, exp: 2 };

describe('identityOf: the verified claims as the identity a user is linked to', () => {
  it('names a new user by preferred_username, else e-mail, else subject, and reads the groups from the configured claim', () => {
    expect(identityOf({ ...base, preferred_username: 'ada', name: 'Ada Lovelace', email: 'ada@example.org', groups: ['editors', 7] }, 'groups')).toEqual({
      issuer: 'https://login.example.org',
      subject: 's-1',
      preferredName: 'ada',
      displayName: 'Ada Lovelace',
      email: 'ada@example.org',
      groups: ['editors'],
    });
    expect(identityOf({ ...base, email: 'bob@example.org' }, 'groups')).toMatchObject({ preferredName: 'bob@example.org', displayName: null, groups: [] });
    expect(identityOf({ ...base, roles: 'admins', groups: ['x'] }, 'roles')).toMatchObject({ preferredName: 's-1', groups: ['admins'] });
  });
});
