import { expect, it } from 'vitest';
import { SqlWhisperModelStore, type StoredWhisperDownload, type StoredWhisperModel } from '../../src/service/storage/whisper-model-store';
import { eachBackend } from '../helpers/sql-backends';

const tiny: StoredWhisperModel = {
  name: 'tiny.en',
  file: 'ggml-tiny.en.bin',
  key: `speech-models/whisper/${'a'.repeat(64)}/ggml-tiny.en.bin`,
  sha256: 'a'.repeat(64),
  sha1: 'c78c86eb1a8faa21b369bcd33207cc90d64ae9df',
  // Beyond 32 bits: large-v3 is 2.9 GiB, and PostgreSQL's INTEGER would refuse it.
  bytes: 3_095_033_483,
  installedAt: '2026-11-29T05:00:00.000Z',
};

/** A download just begun by a node at `at`. */
const begun = (attempt: string, at: string, name = 'tiny.en'): StoredWhisperDownload => ({
  name,
  attempt,
  node: `host-${attempt}:1`,
  status: 'downloading',
  receivedBytes: 0,
  totalBytes: null,
  resumedFrom: 0,
  startedAt: at,
  updatedAt: at,
  finishedAt: null,
  discard: false,
  error: null,
});
const T0 = '2026-11-29T08:00:00.000Z';
const T1 = '2026-11-29T08:00:01.000Z';
/** "Stale before" instants: one before every write above (nothing is stale), one after them (everything unfinished is). */
const NOTHING_STALE = '2026-11-29T07:00:00.000Z';
const ALL_STALE = '2026-11-29T09:00:00.000Z';

// The Whisper models a team installed, read by every node.
eachBackend('WhisperModelStore', (backend) => {
  it('records, lists in name order, replaces and reads back a model exactly', async () => {
    const store = new SqlWhisperModelStore(backend().sql);
    expect(await store.list()).toEqual([]);
    expect(await store.get('tiny.en')).toBeNull();
    const base = { ...tiny, name: 'base.en', file: 'ggml-base.en.bin', key: 'speech-models/whisper/b/ggml-base.en.bin', sha256: 'b'.repeat(64), bytes: 147_951_465 };
    await store.save(tiny);
    await store.save(base);
    expect(await store.get('tiny.en')).toEqual(tiny);
    expect((await store.list()).map((m) => m.name)).toEqual(['base.en', 'tiny.en']);
    const again = { ...tiny, key: `speech-models/whisper/${'c'.repeat(64)}/ggml-tiny.en.bin`, sha256: 'c'.repeat(64), bytes: 77_691_713, installedAt: '2026-11-29T06:00:00.000Z' };
    await store.save(again);
    expect(await store.get('tiny.en')).toEqual(again);
    expect(await store.list()).toHaveLength(2);
  });

  it('remove returns what was recorded, once; a second store instance (another node) sees the same rows', async () => {
    const { sql } = backend();
    const a = new SqlWhisperModelStore(sql);
    const b = new SqlWhisperModelStore(sql);
    await a.save(tiny);
    expect(await b.get('tiny.en')).toEqual(tiny);
    expect(await b.remove('tiny.en')).toEqual(tiny);
    expect(await a.remove('tiny.en')).toBeNull();
    expect(await a.list()).toEqual([]);
  });
});

// A team's Whisper model downloads: one at a time per model, its progress and cancelling through any node.
eachBackend('WhisperModelStore downloads', (backend) => {
  it('a claim wins once; a live download refuses others, a finished or abandoned one is taken over', async () => {
    const store = new SqlWhisperModelStore(backend().sql);
    expect(await store.claimDownload(begun('a', T0), NOTHING_STALE)).toBe(true);
    expect(await store.download('tiny.en')).toEqual(begun('a', T0));
    expect(await store.claimDownload(begun('b', T1), NOTHING_STALE)).toBe(false);
    expect((await store.download('tiny.en'))!.attempt).toBe('a');
    // A's node stopped writing before the stale instant: B takes it over, and A's writes change nothing after.
    expect(await store.claimDownload(begun('b', T1), ALL_STALE)).toBe(true);
    expect(await store.reportDownload('tiny.en', 'a', { receivedBytes: 9, totalBytes: 9, resumedFrom: 0, updatedAt: T1 })).toBe(false);
    await store.endDownload('tiny.en', 'a', { status: 'failed', receivedBytes: 9, error: null, at: T1 });
    expect(await store.download('tiny.en')).toEqual(begun('b', T1));
    // An ended download is taken over at once.
    await store.endDownload('tiny.en', 'b', { status: 'failed', receivedBytes: 5, error: { code: 'network_error', message: 'cut' }, at: T1 });
    expect(await store.claimDownload(begun('c', T1), NOTHING_STALE)).toBe(true);
    expect((await store.downloads()).map((d) => d.attempt)).toEqual(['c']);
  });

  it('two nodes claiming at once: exactly one wins', async () => {
    const { sql } = backend();
    for (let round = 0; round < 5; round++) {
      const name = `m${round}`;
      const wins = await Promise.all(['a', 'b', 'c'].map((n) => new SqlWhisperModelStore(sql).claimDownload(begun(n, T0, name), NOTHING_STALE)));
      expect(wins.filter(Boolean)).toHaveLength(1);
    }
  });

  it('progress is recorded exactly (beyond 32 bits); a cancel stops the reports and says whether one was running', async () => {
    const store = new SqlWhisperModelStore(backend().sql);
    expect(await store.cancelDownload('tiny.en', true)).toBe(false);
    await store.claimDownload(begun('a', T0), NOTHING_STALE);
    const progress = { receivedBytes: 3_000_000_123, totalBytes: 3_095_033_483, resumedFrom: 1_000, updatedAt: T1 };
    expect(await store.reportDownload('tiny.en', 'a', progress)).toBe(true);
    expect(await store.download('tiny.en')).toEqual({ ...begun('a', T0), ...progress });
    expect(await store.cancelDownload('tiny.en', true)).toBe(true);
    expect(await store.download('tiny.en')).toMatchObject({ status: 'cancelled', discard: true, finishedAt: null });
    expect(await store.reportDownload('tiny.en', 'a', progress)).toBe(false);
    // Asked to stop, not yet stopped: still the one download of the model.
    expect(await store.claimDownload(begun('b', T1), NOTHING_STALE)).toBe(false);
    expect(await store.cancelDownload('tiny.en', false)).toBe(false);
    await store.endDownload('tiny.en', 'a', { status: 'cancelled', receivedBytes: 77, error: { code: 'cancelled', message: 'The download was cancelled.' }, at: T1 });
    expect(await store.download('tiny.en')).toMatchObject({
      status: 'cancelled',
      receivedBytes: 77,
      finishedAt: T1,
      updatedAt: T1,
      error: { code: 'cancelled', message: 'The download was cancelled.' },
    });
    await store.forgetDownload('tiny.en', 'other');
    expect(await store.download('tiny.en')).not.toBeNull();
    await store.forgetDownload('tiny.en', 'a');
    expect(await store.download('tiny.en')).toBeNull();
  });

  it('a completed download records its model and ends in one go; one cancelled or taken over first records nothing', async () => {
    const store = new SqlWhisperModelStore(backend().sql);
    await store.claimDownload(begun('a', T0), NOTHING_STALE);
    expect(await store.completeDownload(tiny, 'a')).toBe(true);
    expect(await store.get('tiny.en')).toEqual(tiny);
    expect(await store.download('tiny.en')).toBeNull();
    await store.remove('tiny.en');

    await store.claimDownload(begun('b', T0), NOTHING_STALE);
    await store.cancelDownload('tiny.en', true);
    expect(await store.completeDownload(tiny, 'b')).toBe(false);
    expect(await store.get('tiny.en')).toBeNull();
    await store.endDownload('tiny.en', 'b', { status: 'cancelled', receivedBytes: 0, error: null, at: T1 });

    await store.claimDownload(begun('c', T0), NOTHING_STALE);
    await store.claimDownload(begun('d', T1), ALL_STALE);
    expect(await store.completeDownload(tiny, 'c')).toBe(false);
    expect(await store.get('tiny.en')).toBeNull();
    expect((await store.download('tiny.en'))!.attempt).toBe('d');
  });

  it('a cancel racing with the completion: the model is recorded only if the cancel found nothing running', async () => {
    const { sql } = backend();
    for (let round = 0; round < 10; round++) {
      const [node, other] = [new SqlWhisperModelStore(sql), new SqlWhisperModelStore(sql)];
      await node.claimDownload(begun(`a${round}`, T0), NOTHING_STALE);
      const [recorded, cancelled] = await Promise.all([node.completeDownload(tiny, `a${round}`), other.cancelDownload('tiny.en', true)]);
      expect(recorded).not.toBe(cancelled);
      expect((await node.get('tiny.en')) !== null).toBe(recorded);
      await node.remove('tiny.en');
      await node.forgetDownload('tiny.en', `a${round}`);
    }
  });
});
