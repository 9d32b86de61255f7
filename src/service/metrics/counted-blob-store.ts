import type { BlobStore } from '../storage/blobs/blob-store';

/** The store's operations, and the folder store's own move of a finished upload into place. */
export const STORAGE_OPERATIONS = [
  'put',
  'putFile',
  'putIfAbsent',
  'get',
  'read',
  'stat',
  'download',
  'delete',
  'list',
  'entries',
  'deletePrefix',
  'moveIn',
] as const;
const OPERATIONS: ReadonlySet<string | symbol> = new Set(STORAGE_OPERATIONS);

/**
 * The blob store with each failed operation counted (`takeline_storage_errors_total`); results and errors pass
 * through untouched. An absent object is an answer (null, false), not an error. A proxy rather than a wrapper
 * class: the store stays what it is for those that ask (a folder store's files are moved in place, not copied).
 */
export function countedBlobStore<T extends BlobStore>(store: T, failed: (operation: string) => void): T {
  const wrapped = new Map<string | symbol, unknown>();
  return new Proxy(store, {
    get(target, name) {
      const value = Reflect.get(target, name, target) as unknown;
      if (typeof value !== 'function' || !OPERATIONS.has(name)) return typeof value === 'function' ? value.bind(target) : value;
      if (!wrapped.has(name)) {
        const call = value as (...args: unknown[]) => Promise<unknown>;
        wrapped.set(name, async (...args: unknown[]) => {
          try {
            return await call.apply(target, args);
          } catch (error) {
            failed(String(name));
            throw error;
          }
        });
      }
      return wrapped.get(name);
    },
  });
}
