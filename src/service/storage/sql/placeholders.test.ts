import { describe, expect, it } from 'vitest';
import { inList, numberedPlaceholders, perCount } from './placeholders';

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

describe('inList', () => {
  it('writes one placeholder per value', () => {
    expect(inList(['a', 'b', 'c'])).toBe('?, ?, ?');
    expect(numberedPlaceholders(`SELECT 1 WHERE x IN (${inList([1, 2])})`)).toBe('SELECT 1 WHERE x IN ($1, $2)');
  });
});

describe('perCount', () => {
  it('makes a text per count once and hands back the same string after', () => {
    let made = 0;
    const text = perCount((list) => `SELECT id FROM t WHERE id IN (${list}) -- ${++made}`);
    expect(text(2)).toBe('SELECT id FROM t WHERE id IN (?, ?) -- 1');
    expect(text(1)).toBe('SELECT id FROM t WHERE id IN (?) -- 2');
    expect(text(2)).toBe('SELECT id FROM t WHERE id IN (?, ?) -- 1');
    expect(made).toBe(2);
  });
});
