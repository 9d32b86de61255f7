import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
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

async function until<T>(read: () => T | Promise<T>, done: (value: T) => boolean, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await read();
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

  describe('on a team', () => {
    /** Two team nodes' managers over one database and one storage, each with its own Whisper folder. */
    const teamNodes = (blobs = new FolderBlobStore(tempDir('takeline-wm-storage-')), server = tiny) => {
      const store = new SqlWhisperModelStore(new SqliteSql(openDatabase(path.join(tempDir('takeline-wm-db-'), 'takeline.db'))));
      const node = () => {
        const dir = path.join(tempDir('takeline-wm-node-'), 'whisper');
        const team = new TeamWhisperModels({ store, blobs, cacheDir: path.join(dir, 'team'), downloadTiming: { reportMs: 50, staleMs: 2_000 } });
        return { team, manager: new WhisperModelManager({ dir, baseUrl: server.url, catalogue: CATALOGUE, team }) };
      };
      return { store, blobs, a: node(), b: node() };
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

    describe('downloads through any node', () => {
      let held: FileServer;
      beforeAll(async () => {
        held = await serveFile('ggml-tiny.en.bin', data, { pauseMs: 1 });
      });
      afterAll(() => held.close());
      afterEach(() => {
        held.paused = false;
      });
      /** Node A downloads, held by the server after its first pieces; B has read its progress. */
      const downloadingOnA = async () => {
        const nodes = teamNodes(undefined, held);
        held.paused = true;
        expect(await nodes.a.manager.download('tiny.en')).toMatchObject({ started: true, model: { download: { status: 'downloading' } } });
        const seen = await until(
          () => nodes.b.manager.refresh().then(() => nodes.b.manager.model('tiny.en').download),
          (d) => (d?.received_bytes ?? 0) >= 65536,
        );
        expect(seen).toMatchObject({ status: 'downloading', total_bytes: data.length });
        return nodes;
      };

      it('two nodes asked at once: one downloads, the other joins it; every node shows its progress', async () => {
        const { a, b, store } = teamNodes(undefined, held);
        held.paused = true;
        const requests = held.ranges.length;
        const [viaA, viaB] = await Promise.all([a.manager.download('tiny.en'), b.manager.download('tiny.en')]);
        expect([viaA.started, viaB.started]).toEqual([true, true]);
        expect(viaA.model.download).toMatchObject({ status: 'downloading', started_at: viaB.model.download!.started_at });
        const shown = await until(
          () => b.manager.refresh().then(() => b.manager.model('tiny.en')),
          (m) => (m.download?.received_bytes ?? 0) >= 65536,
        );
        expect(shown.download).toMatchObject({ status: 'downloading', total_bytes: data.length, error: null });
        expect(held.ranges.length - requests).toBe(1);
        const [download] = await store.downloads();
        held.paused = false;
        await Promise.all([a.manager.settled('tiny.en'), b.manager.settled('tiny.en')]);
        await Promise.all([a.manager.refresh(), b.manager.refresh()]);
        expect(a.manager.model('tiny.en')).toMatchObject({ installed: true, download: null });
        expect(b.manager.model('tiny.en')).toMatchObject({ installed: true, download: null });
        // It ran where it was claimed; its row goes once the model is recorded.
        expect([a, b].filter((n) => n.manager.model('tiny.en').partial_bytes > 0)).toEqual([]);
        expect(download!.node).toMatch(/:\d+$/);
        expect(await store.downloads()).toEqual([]);
        expect(held.ranges.length - requests).toBe(1);
      });

      it('a cancel through the other node stops the download where it runs; discard=false keeps that node\'s bytes to resume from', async () => {
        const { a, b } = await downloadingOnA();
        const asked = Date.now();
        const cancelled = await b.manager.cancel('tiny.en', false);
        expect(Date.now() - asked).toBeLessThan(2_000);
        expect(cancelled.download).toMatchObject({ status: 'cancelled', error: { code: 'cancelled' } });
        expect(cancelled.download!.received_bytes).toBeGreaterThanOrEqual(65536);
        // The bytes are A's: B has none; A's download has stopped (settled) and its part stays.
        expect(cancelled.partial_bytes).toBe(0);
        await a.manager.settled('tiny.en');
        await a.manager.refresh();
        const onA = a.manager.model('tiny.en');
        expect(onA.download).toMatchObject({ status: 'cancelled' });
        expect(onA.partial_bytes).toBe(cancelled.download!.received_bytes);

        held.paused = false;
        const again = await a.manager.download('tiny.en');
        expect(again.model.download!.resumed_from).toBe(onA.partial_bytes);
        await a.manager.settled('tiny.en');
        await b.manager.refresh();
        expect(b.manager.model('tiny.en')).toMatchObject({ installed: true, download: null });
      });

      it('a discarding cancel through the other node deletes the running node\'s bytes and forgets the download', async () => {
        const { a, b, store } = await downloadingOnA();
        expect((await b.manager.cancel('tiny.en', true)).download).toBeNull();
        await a.manager.settled('tiny.en');
        expect(a.manager.model('tiny.en')).toMatchObject({ partial_bytes: 0, download: null });
        expect(await store.downloads()).toEqual([]);
      });

      it('a delete through the other node during the download cancels it: nothing is recorded when it would have finished', async () => {
        const { a, b, blobs, store } = await downloadingOnA();
        await b.manager.remove('tiny.en');
        held.paused = false;
        await a.manager.settled('tiny.en');
        await Promise.all([a.manager.refresh(), b.manager.refresh()]);
        for (const node of [a, b]) expect(node.manager.model('tiny.en')).toMatchObject({ installed: false, partial_bytes: 0, download: null });
        expect(await store.list()).toEqual([]);
        expect(await blobs.list('speech-models/')).toEqual([]);
      });

      it('the node running a download that stops (shutdown) leaves it interrupted; another node starts it again', async () => {
        const { a, b } = await downloadingOnA();
        await a.manager.close();
        await b.manager.refresh();
        expect(b.manager.model('tiny.en').download).toMatchObject({ status: 'failed', error: { code: 'interrupted' } });
        held.paused = false;
        expect((await b.manager.download('tiny.en')).started).toBe(true);
        await b.manager.settled('tiny.en');
        expect(b.manager.model('tiny.en')).toMatchObject({ installed: true, download: null });
      });
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
