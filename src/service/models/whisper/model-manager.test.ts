import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../../../test/helpers/temp';
import { ServiceError } from '../../errors';
import { serveFile, sha1, testBytes, type FileServer } from '../downloads/test-server.testutil';
import type { WhisperCatalogueEntry } from './catalogue';
import { WhisperModelManager } from './model-manager';
import { TeamWhisperModels } from './team-models';
import { openDatabase } from '../../storage/database';
import { SqliteSql } from '../../storage/sql/sqlite-sql';
import { SqlWhisperModelStore } from '../../storage/whisper-model-store';
import { FolderBlobStore } from '../../storage/blobs/folder-blob-store';

const data = testBytes(2 * 1024 * 1024 + 7, 'model');
const entry = (name: string, sha: string): WhisperCatalogueEntry => ({
  name,
  file: `ggml-${name}.bin`,
  sha1: sha,
  disk: '2 MiB',
  approxBytes: 2 * 1024 * 1024,
  multilingual: false,
  quantized: false,
  rank: 30,
});
// "tiny.en" is served with the right checksum; "wrong" is served the same bytes but publishes another one.
const CATALOGUE = [entry('tiny.en', sha1(data)), entry('wrong', 'ad82bf6a9043ceed055076d0fd39f5f186ff8062')];

async function until<T>(read: () => T, done: (value: T) => boolean, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = read();
    if (done(value) || Date.now() > end) return value;
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('WhisperModelManager', () => {
  let tiny: FileServer;
  let wrong: FileServer;
  beforeAll(async () => {
    tiny = await serveFile('ggml-tiny.en.bin', data, { pauseMs: 5 });
    wrong = await serveFile('ggml-wrong.bin', data);
  });
  afterAll(async () => {
    await tiny.close();
    await wrong.close();
  });
  const manager = (server: FileServer, options: { freeBytes?: (dir: string) => number } = {}) =>
    new WhisperModelManager({ dir: path.join(tempDir('takeline-wm-'), 'whisper'), baseUrl: server.url, catalogue: CATALOGUE, ...options });

  it('lists the catalogue with what is installed, the folder and its free space', () => {
    const list = manager(tiny).list();
    expect(list.writable).toBe(true);
    expect(list.free_bytes).toBeGreaterThan(0);
    expect(list.data.map((m) => [m.name, m.installed, m.partial_bytes, m.download])).toEqual([
      ['tiny.en', false, 0, null],
      ['wrong', false, 0, null],
    ]);
  });

  it('downloads with progress, verifies the SHA-1 and installs the model', async () => {
    const m = manager(tiny);
    const { model, started } = await m.download('whisper-tiny.en');
    expect(started).toBe(true);
    expect(model.download).toMatchObject({ status: 'downloading', total_bytes: data.length, resumed_from: 0, error: null });
    const seen = new Set<number>();
    const final = await until(
      () => {
        const now = m.model('tiny.en');
        if (now.download) seen.add(now.download.received_bytes);
        return now;
      },
      (now) => now.installed,
    );
    expect(seen.size).toBeGreaterThan(2);
    expect(final).toMatchObject({ installed: true, verified: true, bytes: data.length, partial_bytes: 0, download: null, id: 'whisper-tiny.en' });
    expect(fs.readFileSync(path.join(m.dir, 'ggml-tiny.en.bin')).equals(data)).toBe(true);
    expect((await m.download('tiny.en')).started).toBe(false);
  });

  it('refuses a download whose SHA-1 differs from the published one', async () => {
    const m = manager(wrong);
    await m.download('wrong');
    await m.settled('wrong');
    const model = m.model('wrong');
    expect(model.installed).toBe(false);
    expect(model.download).toMatchObject({ status: 'failed', error: { code: 'checksum_mismatch' } });
    expect(fs.readdirSync(m.dir).filter((f) => f.includes('wrong'))).toEqual([]);
  });

  it('fails as storage full when the disk cannot hold the model, before writing anything', async () => {
    const m = manager(tiny, { freeBytes: () => 1024 * 1024 });
    const error = await m.download('tiny.en').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceError);
    expect((error as ServiceError).kind).toBe('storage_full');
    expect((error as ServiceError).detail.code).toBe('disk_full');
    expect(m.model('tiny.en')).toMatchObject({ installed: false, partial_bytes: 0, download: { status: 'failed', error: { code: 'disk_full' } } });
  });

  it('a cancelled download keeps its bytes, resumes from them, and can be discarded', async () => {
    const m = manager(tiny);
    await m.download('tiny.en');
    await until(() => m.model('tiny.en').download?.received_bytes ?? 0, (n) => n > 300_000);
    const cancelled = await m.cancel('tiny.en', false);
    expect(cancelled.download?.status).toBe('cancelled');
    const kept = cancelled.partial_bytes;
    expect(kept).toBeGreaterThan(300_000);

    const again = await m.download('tiny.en');
    expect(again.model.download?.resumed_from).toBe(kept);
    await m.settled('tiny.en');
    expect(m.model('tiny.en')).toMatchObject({ installed: true, verified: true });

    const m2 = manager(tiny);
    await m2.download('tiny.en');
    await until(() => m2.model('tiny.en').download?.received_bytes ?? 0, (n) => n > 100_000);
    expect((await m2.cancel('tiny.en', true)).partial_bytes).toBe(0);
  });

  it('verifies a model put in place by hand, and removes models', async () => {
    const m = manager(tiny);
    fs.mkdirSync(m.dir, { recursive: true });
    fs.writeFileSync(path.join(m.dir, 'ggml-tiny.en.bin'), data);
    fs.writeFileSync(path.join(m.dir, 'ggml-wrong.bin'), data);
    expect(m.model('tiny.en').verified).toBeNull();
    expect((await m.verify('tiny.en')).verified).toBe(true);
    expect((await m.verify('wrong')).verified).toBe(false);
    await m.remove('tiny.en');
    expect(m.model('tiny.en')).toMatchObject({ installed: false, verified: null });
  });

  it('unknown names are not found; a hand-placed file outside the catalogue cannot be downloaded (conflict)', async () => {
    const m = manager(tiny);
    fs.mkdirSync(m.dir, { recursive: true });
    fs.writeFileSync(path.join(m.dir, 'ggml-finetune.bin'), 'x');
    expect(m.list().data.map((d) => [d.name, d.catalogued, d.installed])).toContainEqual(['finetune', false, true]);
    await expect(m.download('nope')).rejects.toMatchObject({ kind: 'not_found' });
    await expect(m.download('finetune')).rejects.toMatchObject({ kind: 'conflict' });
  });

  describe('on a team (issue 34)', () => {
    /** Two team nodes' managers over one database and one storage, each with its own Whisper folder. */
    const teamNodes = (blobs = new FolderBlobStore(tempDir('takeline-wm-storage-'))) => {
      const store = new SqlWhisperModelStore(new SqliteSql(openDatabase(path.join(tempDir('takeline-wm-db-'), 'takeline.db'))));
      const node = () => {
        const dir = path.join(tempDir('takeline-wm-node-'), 'whisper');
        const team = new TeamWhisperModels({ store, blobs, cacheDir: path.join(dir, 'team') });
        return { team, manager: new WhisperModelManager({ dir, baseUrl: tiny.url, catalogue: CATALOGUE, team }) };
      };
      return { blobs, a: node(), b: node() };
    };

    it('a download through one node is the team’s: stored, listed by the other node, deleted for both', async () => {
      const { blobs, a, b } = teamNodes();
      await b.manager.refresh();
      expect(b.manager.list().shared).toBe(true);
      expect(b.manager.model('tiny.en').installed).toBe(false);
      await a.manager.download('tiny.en');
      await a.manager.settled('tiny.en');
      expect(a.manager.model('tiny.en')).toMatchObject({ installed: true, verified: true, bytes: data.length, download: null });
      // The download went to the storage; the node that downloaded it (an API node) keeps nothing.
      expect(fs.readdirSync(a.manager.dir)).toEqual([]);
      const record = a.team.record('tiny.en')!;
      expect((await blobs.get(record.key))!.equals(data)).toBe(true);

      await b.manager.refresh();
      expect(b.manager.model('tiny.en')).toMatchObject({ installed: true, verified: true, bytes: data.length });
      expect((await b.manager.download('tiny.en')).started).toBe(false);
      // Verifying through the other node hashes the stored file (keeping nothing); a damaged one is refused.
      expect((await b.manager.verify('tiny.en')).verified).toBe(true);
      expect(fs.existsSync(b.manager.dir)).toBe(false);
      await blobs.put(record.key, Buffer.concat([data, Buffer.from('x')]));
      await expect(b.manager.verify('tiny.en')).rejects.toMatchObject({ kind: 'upstream_failed', detail: { code: 'checksum_mismatch' } });
      await blobs.put(record.key, data);

      await b.manager.remove('tiny.en');
      expect(await blobs.stat(record.key)).toBeNull();
      await a.manager.refresh();
      expect(a.manager.model('tiny.en').installed).toBe(false);
      expect(fs.existsSync(a.team.localPath(record))).toBe(false);
    });

    it('a storage that refuses the file fails the download with storage_error; nothing is recorded', async () => {
      class Refusing extends FolderBlobStore {
        override async putFile(): Promise<void> {
          throw new Error('bucket is read-only');
        }
      }
      const { a } = teamNodes(new Refusing(tempDir('takeline-wm-storage-')));
      await a.manager.download('tiny.en');
      await a.manager.settled('tiny.en');
      expect(a.manager.model('tiny.en')).toMatchObject({ installed: false, download: { status: 'failed', error: { code: 'storage_error' } } });
      expect(a.manager.model('tiny.en').download!.error!.message).toMatch(/bucket is read-only/);
      await a.manager.refresh();
      expect(a.team.record('tiny.en')).toBeNull();
    });
  });
});
