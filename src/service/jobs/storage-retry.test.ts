import { describe, expect, it } from 'vitest';
import { ConfigError } from '../config';
import { StorageUnavailableError } from '../storage/blobs/storage-unavailable';
import { retryingStorage, StorageGaveUp, storageRetryDelayMs, storageRetrySeconds } from './storage-retry';

const outage = () => new StorageUnavailableError('s3://media/', Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));

/** A clock the fake sleep moves on, so back-off is checked without waiting. */
function clock() {
  let now = 0;
  const slept: number[] = [];
  return { now: () => now, sleep: async (ms: number) => void (slept.push(ms), (now += ms)), slept };
}

describe('a job retrying while the storage is unavailable', () => {
  it('backs off 1, 2, 4… s up to 30 s a wait', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 20].map(storageRetryDelayMs)).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
  });

  it('goes on once the storage answers again', async () => {
    const c = clock();
    let calls = 0;
    const waits: number[] = [];
    const result = await retryingStorage(
      async () => {
        if (++calls < 4) throw outage();
        return 'done';
      },
      { boundMs: 60_000, signal: new AbortController().signal, waiting: (_o, delay) => waits.push(delay), ...c },
    );
    expect(result).toBe('done');
    expect(calls).toBe(4);
    expect(waits).toEqual([1000, 2000, 4000]);
  });

  it('fails once the next wait would pass the bound, saying for how long and how many tries', async () => {
    const c = clock();
    let calls = 0;
    const failed = await retryingStorage(
      async () => {
        calls++;
        throw outage();
      },
      { boundMs: 20_000, signal: new AbortController().signal, waiting: () => {}, ...c },
    ).catch((e: unknown) => e);
    // 1 + 2 + 4 + 8 = 15 s waited; 16 s more would pass 20 s.
    expect(c.slept).toEqual([1000, 2000, 4000, 8000]);
    expect(calls).toBe(5);
    expect(failed).toBeInstanceOf(StorageGaveUp);
    expect((failed as Error).message).toBe('The storage was unavailable for 15 s (5 tries); retry the job once it is back.');
    expect((failed as StorageGaveUp).outage).toBeInstanceOf(StorageUnavailableError);
  });

  it('passes other errors at once, and an outage once the job is stopped', async () => {
    const c = clock();
    const other = new Error('decoder crashed');
    await expect(retryingStorage(() => Promise.reject(other), { boundMs: 60_000, signal: new AbortController().signal, waiting: () => {}, ...c })).rejects.toBe(other);
    const stopped = new AbortController();
    stopped.abort(new Error('service stopping'));
    await expect(retryingStorage(() => Promise.reject(outage()), { boundMs: 60_000, signal: stopped.signal, waiting: () => {}, ...c })).rejects.toBeInstanceOf(StorageUnavailableError);
    expect(c.slept).toEqual([]);
  });

  it('reads TAKELINE_STORAGE_RETRY_SECONDS (default 300; 0 fails at the first outage)', () => {
    expect(storageRetrySeconds({})).toBe(300);
    expect(storageRetrySeconds({ TAKELINE_STORAGE_RETRY_SECONDS: '0' })).toBe(0);
    expect(storageRetrySeconds({ TAKELINE_STORAGE_RETRY_SECONDS: ' 45 ' })).toBe(45);
    expect(() => storageRetrySeconds({ TAKELINE_STORAGE_RETRY_SECONDS: 'soon' })).toThrow(ConfigError);
  });
});
