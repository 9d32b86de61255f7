import crypto from 'node:crypto';

/**
 * Encoded JSON answers of the polled read routes (a session, its analysis), each kept with the strong
 * ETag it was made for. A poll that finds its ETag unchanged sends the stored bytes (or a 304) without
 * reading the ~200–270 KB document from SQLite, parsing, serialising and encoding it again. Bounded:
 * the least recently used entry leaves first. Built once by the composition root.
 */
export class DocumentCache {
  /**
   * Part of every ETag. By default new at each start, so an ETag never outlives the service that made it
   * (a document's shape may change with an upgrade, a restored data folder may count its changes again).
   * The validators themselves are all kept in the database (the sessions' change counters, the analysis
   * runs' revisions), so API nodes sharing one database and given one epoch make the same ETags.
   */
  readonly epoch: string;
  private readonly entries = new Map<string, { etag: string; bytes: Buffer }>();

  constructor(
    private readonly capacity = 32,
    epoch?: string,
  ) {
    this.epoch = epoch ?? crypto.randomBytes(6).toString('base64url');
  }

  /** A strong ETag from the validators of a document (change counters, revisions). */
  etag(...validators: Array<string | number>): string {
    return `"${[this.epoch, ...validators].join('.')}"`;
  }

  /**
   * The bytes stored under `key` (`{session id}:{document}`) for `etag`, or what `make()` returns, then stored
   * for it. Making reads the database through the async stores, so another request may store the same
   * document meanwhile: the last one made is as current as the ETag says.
   */
  async bytes(key: string, etag: string, make: () => Buffer | Promise<Buffer>): Promise<Buffer> {
    const hit = this.entries.get(key);
    if (hit?.etag === etag) {
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit.bytes;
    }
    const bytes = await make();
    this.entries.delete(key);
    if (this.entries.size >= this.capacity) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { etag, bytes });
    return bytes;
  }

  /** Drops a deleted session's documents (keys start with its id and a colon). */
  forget(sessionId: string): void {
    for (const key of [...this.entries.keys()]) if (key.startsWith(`${sessionId}:`)) this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}
