import { describe, expect, it } from 'vitest';
import { statementName } from './postgres-sql';

describe('prepared statement names', () => {
  it('names a text by its digest, the same each time, within PostgreSQL’s 63-byte names; past the cap new texts go unnamed', () => {
    const a = statementName('SELECT change_seq FROM sessions WHERE id = $1');
    expect(a).toMatch(/^tl_[0-9a-f]{40}$/);
    expect(a!.length).toBeLessThanOrEqual(63);
    expect(statementName('SELECT change_seq FROM sessions WHERE id = $1')).toBe(a);
    expect(statementName('SELECT project_id FROM sessions WHERE id = $1')).not.toBe(a);
    // Texts made at run time (one placeholder per item of a list) fill the cap; those named before keep their names.
    for (let n = 1; n <= 2000; n++) statementName(`SELECT id FROM sessions WHERE id IN (${Array.from({ length: n }, (_, i) => `$${i + 1}`).join(', ')})`);
    expect(statementName('SELECT 1 WHERE $1::text IS NOT NULL')).toBeUndefined();
    expect(statementName('SELECT change_seq FROM sessions WHERE id = $1')).toBe(a);
  });
});
