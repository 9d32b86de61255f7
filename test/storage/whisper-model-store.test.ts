import { expect, it } from 'vitest';
import { SqlWhisperModelStore, type StoredWhisperModel } from '../../src/service/storage/whisper-model-store';
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

// The Whisper models a team installed (issue 34), read by every node.
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
