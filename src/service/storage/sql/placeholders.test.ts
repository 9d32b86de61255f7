import { describe, expect, it } from 'vitest';
import { numberedPlaceholders } from './placeholders';

describe('numberedPlaceholders', () => {
  it('numbers each placeholder in order', () => {
    expect(numberedPlaceholders('SELECT * FROM t WHERE a = ? AND b IN (?, ?)')).toBe('SELECT * FROM t WHERE a = $1 AND b IN ($2, $3)');
  });

  it('leaves question marks in literals, quoted names and comments alone', () => {
    const sql = `SELECT '?', 'it''s ?', "odd?name" FROM t -- why?\nWHERE a = ? /* and ? */ AND b = ?`;
    expect(numberedPlaceholders(sql)).toBe(`SELECT '?', 'it''s ?', "odd?name" FROM t -- why?\nWHERE a = $1 /* and ? */ AND b = $2`);
  });

  it('returns text without placeholders unchanged', () => {
    expect(numberedPlaceholders('SELECT 1')).toBe('SELECT 1');
  });
});
