import { expect, it } from 'vitest';
import { UniqueViolation } from '../../src/service/storage/sql/sql';
import { BadRequestError } from '../../src/service/errors';
import { eachBackend } from '../helpers/sql-backends';

// The layer every store stands on behaves the same over SQLite and PostgreSQL.
eachBackend('Sql', (backend) => {
  const project = (id: string, key: string) =>
    backend().sql.run('INSERT INTO projects (id, key, name, created_at) VALUES (?, ?, ?, ?)', [id, key, key.toUpperCase(), '2026-01-01T00:00:00Z']);

  it('reads rows with integers as numbers and bytes as buffers', async () => {
    const { sql } = backend();
    await project('p1', 'alpha');
    await project('p2', 'beta');
    expect(await sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM projects')).toEqual({ n: 2 });
    expect(await sql.all<{ key: string }>('SELECT key FROM projects WHERE key IN (?, ?) ORDER BY key', ['beta', 'alpha'])).toEqual([{ key: 'alpha' }, { key: 'beta' }]);
    expect(await sql.get('SELECT key FROM projects WHERE id = ?', ['nope'])).toBeUndefined();
    const bytes = Buffer.from([0, 1, 2, 255]);
    await sql.run(`CREATE TABLE bytes_test (id TEXT PRIMARY KEY, data ${sql.dialect === 'sqlite' ? 'BLOB' : 'BYTEA'} NOT NULL)`);
    await sql.run('INSERT INTO bytes_test (id, data) VALUES (?, ?)', ['b1', bytes]);
    const row = await sql.get<{ data: Buffer }>('SELECT data FROM bytes_test WHERE id = ?', ['b1']);
    expect(Buffer.compare(row!.data, bytes)).toBe(0);
  });

  it('counts the rows a statement changed', async () => {
    const { sql } = backend();
    await project('p1', 'alpha');
    expect(await sql.run('UPDATE projects SET name = ? WHERE key = ?', ['A', 'alpha'])).toEqual({ changes: 1 });
    expect(await sql.run('UPDATE projects SET name = ? WHERE key = ?', ['A', 'none'])).toEqual({ changes: 0 });
  });

  it('turns a unique-key refusal into UniqueViolation and keeps the first row', async () => {
    const { sql } = backend();
    await project('p1', 'alpha');
    await expect(project('p2', 'alpha')).rejects.toBeInstanceOf(UniqueViolation);
    expect(await sql.all('SELECT id FROM projects')).toEqual([{ id: 'p1' }]);
  });

  it('refuses text holding U+0000 where the database cannot hold it, as the client’s error (PostgreSQL; SQLite keeps it)', async () => {
    const { sql } = backend();
    if (sql.dialect === 'sqlite') {
      await project('p1', 'nul\0key');
      expect(await sql.get('SELECT id FROM projects WHERE key = ?', ['nul\0key'])).toEqual({ id: 'p1' });
      return;
    }
    const refused = await sql.get('SELECT id FROM projects WHERE key = ?', ['nul\0key']).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(BadRequestError);
    expect(refused).toMatchObject({ kind: 'bad_request', detail: { code: 'nul_character' } });
    await expect(project('p1', 'nul\0key')).rejects.toBeInstanceOf(BadRequestError);
    expect(await sql.all('SELECT id FROM projects')).toEqual([]);
  });

  it('commits a transaction that resolves and rolls back one that throws', async () => {
    const { sql } = backend();
    await sql.transaction(async (tx) => {
      await tx.run('INSERT INTO projects (id, key, name, created_at) VALUES (?, ?, ?, ?)', ['p1', 'alpha', 'A', 'x']);
    });
    await expect(
      sql.transaction(async (tx) => {
        await tx.run('INSERT INTO projects (id, key, name, created_at) VALUES (?, ?, ?, ?)', ['p2', 'beta', 'B', 'x']);
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    expect(await sql.all('SELECT id FROM projects ORDER BY id')).toEqual([{ id: 'p1' }]);
  });

  it('makes a nested transaction a savepoint: its failure undoes only its own work', async () => {
    const { sql } = backend();
    await sql.transaction(async (tx) => {
      await tx.run('INSERT INTO projects (id, key, name, created_at) VALUES (?, ?, ?, ?)', ['p1', 'alpha', 'A', 'x']);
      await tx
        .transaction(async (inner) => {
          await inner.run('INSERT INTO projects (id, key, name, created_at) VALUES (?, ?, ?, ?)', ['p2', 'beta', 'B', 'x']);
          throw new Error('inner');
        })
        .catch(() => undefined);
      await tx.run('INSERT INTO projects (id, key, name, created_at) VALUES (?, ?, ?, ?)', ['p3', 'gamma', 'C', 'x']);
    });
    expect(await sql.all('SELECT id FROM projects ORDER BY id')).toEqual([{ id: 'p1' }, { id: 'p3' }]);
  });

  it('keeps other callers out of a transaction until it commits', async () => {
    const { sql } = backend();
    let inside!: () => void;
    const entered = new Promise<void>((resolve) => (inside = resolve));
    let finish!: () => void;
    const held = new Promise<void>((resolve) => (finish = resolve));
    const transaction = sql.transaction(async (tx) => {
      await tx.run('INSERT INTO projects (id, key, name, created_at) VALUES (?, ?, ?, ?)', ['p1', 'alpha', 'A', 'x']);
      inside();
      await held;
      await tx.run('UPDATE projects SET name = ? WHERE id = ?', ['final', 'p1']);
    });
    await entered;
    const reader = sql.get<{ name: string }>('SELECT name FROM projects WHERE id = ?', ['p1']);
    finish();
    await transaction;
    // The reader either waited for the commit or read before the row existed; never the half-done 'A'.
    expect((await reader)?.name ?? 'absent').not.toBe('A');
  });
});
