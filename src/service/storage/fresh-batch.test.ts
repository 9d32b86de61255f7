import { describe, expect, it } from 'vitest';
import { FreshBatch, pointReads } from './fresh-batch';
import type { Sql } from './sql/sql';

/** A table read by queries that each see it as it was when sent, answering when `finish()` is called. */
function fakeTable(initial: Record<string, number>) {
  const table = new Map(Object.entries(initial));
  const queries: Array<{ keys: string[]; finish: () => void; fail: (e: Error) => void }> = [];
  const read = (keys: string[]) =>
    new Promise<Map<string, number>>((resolve, reject) => {
      const seen = new Map(keys.filter((k) => table.has(k)).map((k) => [k, table.get(k)!]));
      queries.push({ keys, finish: () => resolve(seen), fail: reject });
    });
  return { table, queries, read };
}

describe('FreshBatch', () => {
  it('sends a read at once when none is in flight, alone', async () => {
    const t = fakeTable({ a: 1 });
    const batch = new FreshBatch(t.read, null);
    const a = batch.get('a');
    expect(t.queries.map((q) => q.keys)).toEqual([['a']]);
    t.queries[0]!.finish();
    expect(await a).toBe(1);
  });

  it('gathers the reads asked for while one is in flight into the next query, each key once', async () => {
    const t = fakeTable({ a: 1, b: 2 });
    const batch = new FreshBatch(t.read, null);
    const first = batch.get('a');
    const later = [batch.get('b'), batch.get('a'), batch.get('b'), batch.get('missing')];
    expect(t.queries).toHaveLength(1);
    t.queries[0]!.finish();
    expect(await first).toBe(1);
    expect(t.queries.map((q) => q.keys)).toEqual([['a'], ['b', 'a', 'missing']]);
    t.queries[1]!.finish();
    expect(await Promise.all(later)).toEqual([2, 1, 2, null]);
  });

  it('never answers a read with a query sent before it was asked for', async () => {
    const t = fakeTable({ a: 1 });
    const batch = new FreshBatch(t.read, null);
    const before = batch.get('a');
    // A write commits after the first query was sent, then a request asks: it must see the write.
    t.table.set('a', 2);
    const after = batch.get('a');
    t.queries[0]!.finish();
    expect(await before).toBe(1);
    await Promise.resolve();
    t.queries[1]!.finish();
    expect(await after).toBe(2);
  });

  it("fails only the reads of a query that failed; the next ones get a query of their own", async () => {
    const t = fakeTable({ a: 1 });
    const batch = new FreshBatch(t.read, null);
    const failed = batch.get('a');
    const next = batch.get('a');
    t.queries[0]!.fail(new Error('connection lost'));
    await expect(failed).rejects.toThrow('connection lost');
    await Promise.resolve();
    t.queries[1]!.finish();
    expect(await next).toBe(1);
    // And the batch is idle again: a new read goes at once.
    const again = batch.get('a');
    expect(t.queries).toHaveLength(3);
    t.queries[2]!.finish();
    expect(await again).toBe(1);
  });

  it('reads each key of a failed query alone, so a key the database refuses fails only its own reads', async () => {
    const asked: string[][] = [];
    const batch = new FreshBatch(async (keys: string[]) => {
      asked.push(keys);
      if (keys.includes('bad\0')) throw new Error('invalid byte sequence');
      return new Map(keys.map((k) => [k, k.length]));
    }, null);
    const first = batch.get('x');
    const [good, bad, other] = [batch.get('good'), batch.get('bad\0'), batch.get('other')];
    expect(await first).toBe(1);
    expect(await good).toBe(4);
    await expect(bad).rejects.toThrow('invalid byte sequence');
    expect(await other).toBe(5);
    expect(asked).toEqual([['x'], ['good', 'bad\0', 'other'], ['good'], ['bad\0'], ['other']]);
  });

  it('sends at most `limit` keys in one query', async () => {
    const keys = Array.from({ length: 7 }, (_, i) => `k${i}`);
    const t = fakeTable(Object.fromEntries(keys.map((k, i) => [k, i])));
    const batch = new FreshBatch(t.read, -1, { limit: 3 });
    const reads = [batch.get('first'), ...keys.map((k) => batch.get(k))];
    for (let i = 0; i < 4; i++) {
      await Promise.resolve();
      await Promise.resolve();
      t.queries[i]!.finish();
    }
    expect(await Promise.all(reads)).toEqual([-1, 0, 1, 2, 3, 4, 5, 6]);
    expect(t.queries.map((q) => q.keys)).toEqual([['first'], ['k0', 'k1', 'k2'], ['k3', 'k4', 'k5'], ['k6']]);
    expect(() => new FreshBatch(t.read, null, { limit: 0 })).toThrow(RangeError);
  });

  it('with gather off (SQLite, in-process), sends every read as it comes, each its own query', async () => {
    const t = fakeTable({ a: 1, b: 2 });
    const batch = new FreshBatch(t.read, null, { gather: false });
    const reads = [batch.get('a'), batch.get('b'), batch.get('a'), batch.get('c')];
    expect(t.queries.map((q) => q.keys)).toEqual([['a'], ['b'], ['a'], ['c']]);
    for (const q of t.queries) q.finish();
    expect(await Promise.all(reads)).toEqual([1, 2, 1, null]);
  });

  it('gathers over PostgreSQL, and not over SQLite (pointReads)', async () => {
    for (const [dialect, queries] of [['postgres', [['a'], ['b', 'c']]], ['sqlite', [['a'], ['b'], ['c']]]] as const) {
      const t = fakeTable({ a: 1, b: 2, c: 3 });
      const batch = pointReads({ dialect } as Sql, t.read, null);
      const reads = ['a', 'b', 'c'].map((k) => batch.get(k));
      t.queries[0]!.finish();
      await Promise.resolve();
      await Promise.resolve();
      for (const q of t.queries.slice(1)) q.finish();
      expect(await Promise.all(reads)).toEqual([1, 2, 3]);
      expect(t.queries.map((q) => q.keys)).toEqual(queries);
    }
  });
});
