import { describe, expect, it } from 'vitest';
import { parentsFirst } from './backup-tables';

describe('parentsFirst', () => {
  it('puts each table after the tables its foreign keys name, whatever the names', () => {
    const parents = new Map([
      ['api_key_projects', ['api_keys', 'projects']],
      ['api_keys', ['users']],
      ['sessions', ['projects']],
      ['a_child', ['sessions']],
    ]);
    const order = parentsFirst(['a_child', 'api_key_projects', 'api_keys', 'projects', 'sessions', 'users'], parents);
    for (const [child, names] of parents) for (const parent of names) expect(order.indexOf(parent)).toBeLessThan(order.indexOf(child));
    expect(order).toHaveLength(6);
  });

  it('ignores parents that are not carried and a table naming itself', () => {
    expect(parentsFirst(['b', 'a'], new Map([['a', ['a', 'schema_migrations']]]))).toEqual(['a', 'b']);
  });
});
