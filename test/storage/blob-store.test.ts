import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BlobStore } from '../../src/service/storage/blobs/blob-store';
import { FolderBlobStore } from '../../src/service/storage/blobs/folder-blob-store';
import { startS3, type ThrowawayS3 } from '../helpers/s3';
import { tempDir } from '../helpers/temp';

const sha256 = (data: Buffer) => crypto.createHash('sha256').update(data).digest('hex');

async function text(stream: NodeJS.ReadableStream | null): Promise<string | null> {
  if (!stream) return null;
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks).toString('utf8');
}

/** The same file tests for every store: the folder (desktop, shared volume) and S3 (a real gateway). */
function blobContract(name: string, open: () => Promise<BlobStore>) {
  describe(`BlobStore (${name})`, () => {
    let store: BlobStore;
    beforeAll(async () => {
      store = await open();
    }, 120_000);

    it('stores, reads, stats and deletes an object; a missing one is null', async () => {
      await store.put('recordings/a/original.flac', Buffer.from('hello world'));
      expect((await store.get('recordings/a/original.flac'))?.toString()).toBe('hello world');
      expect(await store.stat('recordings/a/original.flac')).toMatchObject({ size: 11 });
      expect(await store.get('recordings/a/missing')).toBeNull();
      expect(await store.stat('recordings/a/missing')).toBeNull();
      expect(await store.read('recordings/a/missing')).toBeNull();
      await store.delete('recordings/a/original.flac');
      expect(await store.get('recordings/a/original.flac')).toBeNull();
      await store.delete('recordings/a/original.flac');
    });

    it('streams a large file up and down intact (sha256), and serves byte ranges', async () => {
      const dir = tempDir('blob-');
      const source = path.join(dir, 'big.bin');
      const bytes = crypto.randomBytes(12 * 1024 * 1024 + 17);
      fs.writeFileSync(source, bytes);
      await store.putFile('recordings/big/original.wav', source);
      const copy = path.join(dir, 'copy.bin');
      expect(await store.download('recordings/big/original.wav', copy)).toBe(true);
      expect(sha256(fs.readFileSync(copy))).toBe(sha256(bytes));
      expect(await store.download('recordings/big/none', path.join(dir, 'none'))).toBe(false);
      const range = await store.read('recordings/big/original.wav', { start: 1000, end: 1999 });
      const chunks: Buffer[] = [];
      for await (const chunk of range!) chunks.push(Buffer.from(chunk as Uint8Array));
      expect(Buffer.compare(Buffer.concat(chunks), bytes.subarray(1000, 2000))).toBe(0);
    }, 120_000);

    it('writes only when absent: of two nodes racing, exactly one wins and its bytes stay', async () => {
      const results = await Promise.all(['first', 'second', 'third'].map((who) => store.putIfAbsent('secrets/audio-url.key', who)));
      expect(results.filter(Boolean)).toHaveLength(1);
      const winner = ['first', 'second', 'third'][results.indexOf(true)];
      expect(await text(await store.read('secrets/audio-url.key'))).toBe(winner);
      expect(await store.putIfAbsent('secrets/audio-url.key', 'later')).toBe(false);
      expect((await store.get('secrets/audio-url.key'))?.toString()).toBe(winner);
    });

    it('lists and deletes by prefix, leaving other folders alone', async () => {
      await Promise.all(['dubs/d1/r1.wav', 'dubs/d1/r2.wav', 'dubs/d1/lines/3.wav', 'dubs/d2/r1.wav'].map((k) => store.put(k, k)));
      expect((await store.list('dubs/d1/')).sort()).toEqual(['dubs/d1/lines/3.wav', 'dubs/d1/r1.wav', 'dubs/d1/r2.wav']);
      expect(await store.deletePrefix('dubs/d1/')).toBe(3);
      expect(await store.list('dubs/d1/')).toEqual([]);
      expect(await store.list('dubs/')).toEqual(['dubs/d2/r1.wav']);
      expect(await store.list('nothing/')).toEqual([]);
    });

    it('lists entries with their size and last write', async () => {
      const before = Date.now();
      await store.put('sized/a.bin', Buffer.alloc(1234, 1));
      const [entry, ...rest] = await store.entries('sized/');
      expect(rest).toEqual([]);
      expect(entry).toMatchObject({ key: 'sized/a.bin', size: 1234 });
      // Clocks of a remote store may differ a little from ours (S3 keeps whole seconds).
      expect(Math.abs(entry!.modified.getTime() - before)).toBeLessThan(60_000);
      expect(await store.entries('nothing/')).toEqual([]);
    });

    it('replaces an object whole: a reader gets the old bytes or the new, never a mix', async () => {
      const old = Buffer.alloc(2 * 1024 * 1024, 'a');
      const next = Buffer.alloc(2 * 1024 * 1024, 'b');
      await store.put('peaks/p.json', old);
      const reads: Array<Promise<Buffer | null>> = [];
      const write = store.put('peaks/p.json', next);
      for (let i = 0; i < 5; i++) reads.push(store.get('peaks/p.json'));
      await write;
      for (const read of await Promise.all(reads)) expect([sha256(old), sha256(next)]).toContain(sha256(read!));
      expect(sha256((await store.get('peaks/p.json'))!)).toBe(sha256(next));
    });

    it('refuses keys that could leave its root or name nothing', async () => {
      for (const key of ['', '/abs', 'a/../b', '../x', 'a//b', 'a/', 'a\\b', './a']) {
        await expect(store.put(key, 'x'), key).rejects.toThrow(/Not a storage key/);
      }
      await expect(store.list('no-slash')).rejects.toThrow(/ends with/);
    });
  });
}

blobContract('folder', async () => new FolderBlobStore(path.join(tempDir('blobs-'), 'store')));

let gateway: ThrowawayS3 | null = null;
afterAll(async () => {
  await gateway?.stop();
});
blobContract('s3', async () => {
  gateway = await startS3();
  return await gateway.bucket('takeline-media', 'team/');
});
