import { expect, it } from 'vitest';
import { openDatabase } from '../database';
import { SqliteSql } from './sqlite-sql';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

it("reports a root statement that waits on a transaction's commit too long, naming it and where the transaction began", async () => {
  const warnings: string[] = [];
  const sql = new SqliteSql(openDatabase(':memory:'), { stuckWaitMs: 50, warn: (m) => warnings.push(m) });
  let inner: Promise<unknown> | null = null;
  await sql.transaction(async (tx) => {
    await tx.run('CREATE TABLE t (n INTEGER)');
    // The mistake: the root handle inside the transaction's work. It cannot run before the commit.
    inner = sql.get('SELECT COUNT(*) AS n FROM t');
    await sleep(150);
    await tx.run('INSERT INTO t (n) VALUES (1)');
  });
  expect(await inner).toEqual({ n: 1 });
  expect(warnings).toHaveLength(1);
  expect(warnings[0]).toContain('SELECT COUNT(*) AS n FROM t');
  expect(warnings[0]).toContain('sqlite-sql.test.ts');
});

it('says nothing of a fair wait shorter than the limit', async () => {
  const warnings: string[] = [];
  const sql = new SqliteSql(openDatabase(':memory:'), { stuckWaitMs: 500, warn: (m) => warnings.push(m) });
  const first = sql.transaction(async (tx) => {
    await tx.run('CREATE TABLE t (n INTEGER)');
    await sleep(20);
  });
  expect(await sql.all('SELECT n FROM t')).toEqual([]);
  await first;
  await sleep(550);
  expect(warnings).toEqual([]);
});

it('runs transactions asked for at once one after another, never one inside another', async () => {
  const sql = new SqliteSql(openDatabase(':memory:'));
  await sql.run('CREATE TABLE t (n INTEGER)');
  let open = 0;
  let most = 0;
  await Promise.all(
    Array.from({ length: 6 }, (_, i) =>
      sql.transaction(async (tx) => {
        most = Math.max(most, ++open);
        await sleep(5);
        await tx.run('INSERT INTO t (n) VALUES (?)', [i]);
        open--;
      }),
    ),
  );
  expect(most).toBe(1);
  expect(await sql.get('SELECT COUNT(*) AS n FROM t')).toEqual({ n: 6 });
});
