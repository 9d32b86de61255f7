import type { Sql } from './sql/sql';

interface Waiter<V> {
  resolve(value: V): void;
  reject(error: unknown): void;
}

/**
 * Point reads asked for on every request (an ETag's validators, a key's access) gathered into one query: while a
 * query is in flight, the reads asked for meanwhile wait and then go together in the next one. A query is only
 * ever sent after every read in it was asked for, so each read sees the database as it was when asked, or newer
 * (a write committed before a request arrived is in its answer on every node), unlike a cache. With nothing in
 * flight a read goes at once, alone: batching costs no latency when idle and saves round trips under load (on a
 * team's API node, pg's socket writes and reads were a quarter of its CPU under 50 readers). SQLite answers
 * in-process, with no round trip to save: there (`gather: false`) each read is its own query, as it comes.
 */
export class FreshBatch<K, V> {
  private waiting = new Map<K, Waiter<V>[]>();
  private flushing = false;

  private readonly gather: boolean;
  private readonly limit: number;

  /**
   * @param read one query for these distinct keys: the value of each it found (a key it did not is `absent`)
   * @param options.gather false: every read its own query at once (default true)
   * @param options.limit the most keys in one query (each count of keys is its own statement text; default 64)
   */
  constructor(
    private readonly read: (keys: K[]) => Promise<Map<K, V>>,
    private readonly absent: V,
    options: { gather?: boolean; limit?: number } = {},
  ) {
    this.gather = options.gather ?? true;
    this.limit = options.limit ?? 64;
    if (!Number.isInteger(this.limit) || this.limit < 1) throw new RangeError(`limit must be a whole number ≥ 1, not ${this.limit}`);
  }

  get(key: K): Promise<V> {
    if (!this.gather) return this.read([key]).then((found) => (found.has(key) ? found.get(key)! : this.absent));
    return new Promise<V>((resolve, reject) => {
      const waiters = this.waiting.get(key);
      if (waiters) waiters.push({ resolve, reject });
      else this.waiting.set(key, [{ resolve, reject }]);
      if (!this.flushing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      while (this.waiting.size > 0) {
        const batch = new Map<K, Waiter<V>[]>();
        for (const [key, waiters] of this.waiting) {
          if (batch.size === this.limit) break;
          batch.set(key, waiters);
        }
        for (const key of batch.keys()) this.waiting.delete(key);
        try {
          this.answer(batch, await this.read([...batch.keys()]));
        } catch (error) {
          if (batch.size === 1) this.fail(batch, error);
          // One key the database refuses must not fail the others asked for with it: each alone, then.
          else await Promise.all([...batch].map(([key, waiters]) => this.readAlone(key, waiters)));
        }
      }
    } finally {
      this.flushing = false;
    }
  }

  private async readAlone(key: K, waiters: Waiter<V>[]): Promise<void> {
    const batch = new Map([[key, waiters]]);
    try {
      this.answer(batch, await this.read([key]));
    } catch (error) {
      this.fail(batch, error);
    }
  }

  private answer(batch: Map<K, Waiter<V>[]>, found: Map<K, V>): void {
    for (const [key, waiters] of batch) for (const w of waiters) w.resolve(found.has(key) ? found.get(key)! : this.absent);
  }

  private fail(batch: Map<K, Waiter<V>[]>, error: unknown): void {
    for (const waiters of batch.values()) for (const w of waiters) w.reject(error);
  }
}

/**
 * A store's point reads over `sql`: gathered on PostgreSQL, where every query is a round trip; on SQLite, which
 * answers in-process, each read is its own query as it comes (gathering there only cost CPU).
 */
export function pointReads<K, V>(sql: Sql, read: (keys: K[]) => Promise<Map<K, V>>, absent: V): FreshBatch<K, V> {
  return new FreshBatch(read, absent, { gather: sql.dialect === 'postgres' });
}
