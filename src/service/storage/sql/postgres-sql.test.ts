import { describe, expect, it } from 'vitest';
import { statementFor } from './postgres-sql';

describe('prepared statements', () => {
  it('numbers a text’s placeholders and names it by its digest, the same each time, within PostgreSQL’s 63-byte names; past the cap new texts go unnamed', () => {
    const a = statementFor('SELECT change_seq FROM sessions WHERE id = ?');
    expect(a.text).toBe('SELECT change_seq FROM sessions WHERE id = $1');
    expect(a.name).toMatch(/^tl_[0-9a-f]{40}$/);
    expect(a.name!.length).toBeLessThanOrEqual(63);
    expect(statementFor('SELECT change_seq FROM sessions WHERE id = ?').name).toBe(a.name);
    expect(statementFor('SELECT project_id FROM sessions WHERE id = ?').name).not.toBe(a.name);
    // A text without placeholders goes by the simple protocol, never named (it takes no place under the cap).
    expect(statementFor('SELECT 1')).toEqual({ text: 'SELECT 1', name: undefined });
    // Texts made at run time (one placeholder per item of a list) fill the cap; those named before keep their names.
    for (let n = 1; n <= 2000; n++) statementFor(`SELECT id FROM sessions WHERE id IN (${Array.from({ length: n }, () => '?').join(', ')})`);
    const late = statementFor('SELECT 1 WHERE ?::text IS NOT NULL');
    expect(late).toEqual({ text: 'SELECT 1 WHERE $1::text IS NOT NULL', name: undefined });
    expect(statementFor('SELECT change_seq FROM sessions WHERE id = ?').name).toBe(a.name);
  });
});
