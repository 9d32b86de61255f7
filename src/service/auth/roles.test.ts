import { describe, expect, it } from 'vitest';
import { allows, grantsOf, higher, parseRoleMap } from './roles';

describe('roles', () => {
  it('orders viewer < editor < admin, and no role allows nothing', () => {
    expect(allows('admin', 'editor')).toBe(true);
    expect(allows('editor', 'editor')).toBe(true);
    expect(allows('viewer', 'editor')).toBe(false);
    expect(allows(null, 'viewer')).toBe(false);
    expect(higher('viewer', 'admin')).toBe('admin');
    expect(higher(null, 'editor')).toBe('editor');
    expect(higher(null, null)).toBeNull();
  });

  it('parses TAKELINE_OIDC_ROLE_MAP and says what is wrong with a bad one', () => {
    expect([...parseRoleMap(' takeline-admins=admin, editors = editor ,')]).toEqual([
      ['takeline-admins', 'admin'],
      ['editors', 'editor'],
    ]);
    expect(parseRoleMap(undefined).size).toBe(0);
    expect(() => parseRoleMap('cn=Editors=editor')).toThrow(/is not group=role/);
    expect(() => parseRoleMap('staff')).toThrow(/"staff" is not group=role/);
    expect(() => parseRoleMap('staff=owner')).toThrow(/"owner" \(for group "staff"\) is not a role/);
    expect(() => parseRoleMap('a=viewer,a=admin')).toThrow(/names the group "a" twice/);
  });

  it("gives the team the higher of the given role and the groups' mapped ones; project roles as given", () => {
    const map = parseRoleMap('leads=admin,staff=viewer');
    expect(grantsOf([], ['staff'], map)).toEqual({ team: 'viewer', projects: {} });
    expect(grantsOf([{ projectId: null, role: 'editor' }], ['staff'], map).team).toBe('editor');
    expect(grantsOf([{ projectId: null, role: 'editor' }], ['leads', 'other'], map).team).toBe('admin');
    expect(grantsOf([{ projectId: 'p', role: 'editor' }], [], map)).toEqual({ team: null, projects: { p: 'editor' } });
  });
});
