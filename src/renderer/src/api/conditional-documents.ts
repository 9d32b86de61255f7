/**
 * The last copy of each polled document (a session, its analysis) with its ETag, so the next poll sends
 * `If-None-Match` and a 304 — no body sent, nothing parsed — hands back the same object. Bounded: the
 * studio polls one or two documents at a time.
 */
export class ConditionalDocuments {
  private readonly copies = new Map<string, { etag: string; value: unknown }>();

  constructor(private readonly capacity = 8) {}

  /** Headers for a GET of `path`: `If-None-Match` when a copy is kept. */
  headers(path: string): Record<string, string> {
    const copy = this.copies.get(path);
    return copy ? { 'If-None-Match': copy.etag } : {};
  }

  /** The kept copy (after a 304), or undefined. */
  reuse<T>(path: string): T | undefined {
    const copy = this.copies.get(path);
    if (!copy) return undefined;
    this.copies.delete(path);
    this.copies.set(path, copy);
    return copy.value as T;
  }

  /** Keeps a 200's value when it came with an ETag (and forgets an older copy when it did not). */
  remember(path: string, etag: string | null, value: unknown): void {
    this.copies.delete(path);
    if (!etag) return;
    if (this.copies.size >= this.capacity) this.copies.delete(this.copies.keys().next().value!);
    this.copies.set(path, { etag, value });
  }
}
