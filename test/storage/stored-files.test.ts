import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BlobStore } from '../../src/service/storage/blobs/blob-store';
import { FolderBlobStore } from '../../src/service/storage/blobs/folder-blob-store';
import { S3BlobStore } from '../../src/service/storage/blobs/s3-blob-store';
import { DataLayout } from '../../src/service/storage/files';
import { StoredFiles } from '../../src/service/storage/stored-files';
import { NotFoundError } from '../../src/service/errors';
import { sweepOrphans } from '../../src/service/recordings/intake';
import { startS3, type ThrowawayS3 } from '../helpers/s3';
import { tempDir } from '../helpers/temp';

const sha256 = (data: Buffer) => crypto.createHash('sha256').update(data).digest('hex');

function layoutIn(prefix: string): DataLayout {
  const layout = new DataLayout(path.join(tempDir(prefix), 'data'));
  layout.ensure();
  return layout;
}

/** A spooled upload in the data folder's uploads, as the multipart reader leaves it. */
function upload(layout: DataLayout, bytes: Buffer): { path: string; size: number } {
  const file = path.join(layout.uploads, `upload-${crypto.randomUUID()}`);
  fs.writeFileSync(file, bytes);
  return { path: file, size: bytes.length };
}

describe('StoredFiles on the data folder (the desktop default)', () => {
  it('keeps the data folder layout: the original is recordings/<session>/<name>, moved in, and decoders read it in place', async () => {
    const layout = layoutIn('stored-folder-');
    const files = new StoredFiles(new FolderBlobStore(layout.root), layout);
    expect(files.isDataFolder).toBe(true);
    const bytes = crypto.randomBytes(50_000);
    const sent = upload(layout, bytes);
    await files.storeOriginal('s1', 'original.flac', sent);
    expect(fs.existsSync(sent.path)).toBe(false);
    expect(sha256(fs.readFileSync(layout.original('s1', 'original.flac')))).toBe(sha256(bytes));
    const copy = await files.localOriginal('s1', 'original.flac');
    expect(copy.path).toBe(layout.original('s1', 'original.flac'));
    await copy.release();
    expect(fs.existsSync(layout.original('s1', 'original.flac'))).toBe(true);
    expect(fs.readdirSync(layout.scratch)).toEqual([]);
    await files.writePeaks('s1', '{"peaks":[]}');
    expect(fs.readFileSync(path.join(layout.recording('s1'), 'peaks.json'), 'utf8')).toBe('{"peaks":[]}');
    await files.deleteRecording('s1');
    expect(fs.existsSync(layout.recording('s1'))).toBe(false);
  });
});

const known = (...ids: string[]) => ({ allIds: async () => new Set(ids) });

describe('the start-up sweep on the data folder', () => {
  it('removes an orphan older than the grace period, keeps a fresh one and anything a row names, and empties uploads and scratch', async () => {
    const layout = layoutIn('sweep-folder-');
    const files = new StoredFiles(new FolderBlobStore(layout.root), layout);
    for (const id of ['kept', 'old-orphan', 'fresh-orphan']) await files.storeOriginal(id, 'original.flac', upload(layout, crypto.randomBytes(1000)));
    fs.mkdirSync(path.join(layout.recording('kept'), 'dubs'), { recursive: true });
    const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
    for (const id of ['kept', 'old-orphan']) fs.utimesSync(layout.original(id, 'original.flac'), twoHoursAgo, twoHoursAgo);
    fs.mkdirSync(layout.recording('old-empty'));
    fs.utimesSync(layout.recording('old-empty'), twoHoursAgo, twoHoursAgo);
    fs.mkdirSync(layout.recording('fresh-empty'));
    fs.writeFileSync(path.join(layout.uploads, 'half-an-upload'), 'x');
    fs.writeFileSync(path.join(layout.scratch, 'decoder.wav'), 'x');

    expect(await sweepOrphans(files, layout, known('kept'))).toBe(4);
    expect(fs.readdirSync(layout.recordings).sort()).toEqual(['fresh-empty', 'fresh-orphan', 'kept']);
    expect(fs.readdirSync(layout.recording('kept')).sort()).toEqual(['dubs', 'original.flac']);
    expect(fs.readdirSync(layout.uploads)).toEqual([]);
    expect(fs.readdirSync(layout.scratch)).toEqual([]);
    // An hour later the fresh orphans go too; what a row names never does.
    expect(await sweepOrphans(files, layout, known('kept'), { now: Date.now() + 3600_000 + 1000 })).toBe(2);
    expect(fs.readdirSync(layout.recordings)).toEqual(['kept']);
  });
});

let gateway: ThrowawayS3 | null = null;
let bucketStore: BlobStore;
beforeAll(async () => {
  gateway = await startS3();
  bucketStore = await gateway.bucket('takeline-files', 'node/');
}, 120_000);
afterAll(async () => {
  (bucketStore as S3BlobStore | undefined)?.close();
  await gateway?.stop();
});

describe('StoredFiles on S3', () => {
  it('uploads the original whole (size checked), and gives decoders one shared scratch copy, removed after the last user', async () => {
    const layout = layoutIn('stored-s3-');
    const files = new StoredFiles(bucketStore, layout);
    expect(files.isDataFolder).toBe(false);
    const bytes = crypto.randomBytes(3 * 1024 * 1024 + 5);
    const sent = upload(layout, bytes);
    await files.storeOriginal('s2', 'original.wav', sent);
    expect(fs.existsSync(sent.path)).toBe(false);
    expect(fs.existsSync(layout.recording('s2'))).toBe(false);
    expect(await bucketStore.stat('recordings/s2/original.wav')).toMatchObject({ size: bytes.length });

    const [a, b] = await Promise.all([files.localOriginal('s2', 'original.wav'), files.localOriginal('s2', 'original.wav')]);
    expect(a.path).toBe(b.path);
    expect(path.dirname(a.path)).toBe(layout.scratch);
    expect(sha256(fs.readFileSync(a.path))).toBe(sha256(bytes));
    expect(files.copies.size).toBe(1);
    await a.release();
    await a.release(); // twice is once
    expect(fs.existsSync(b.path)).toBe(true);
    await b.release();
    expect(fs.existsSync(b.path)).toBe(false);
    expect(files.copies.size).toBe(0);
    expect(fs.readdirSync(layout.scratch)).toEqual([]);

    // Range reads come from the store itself.
    const part = await files.readOriginal('s2', 'original.wav', { start: 100, end: 199 });
    const chunks: Buffer[] = [];
    for await (const chunk of part!) chunks.push(Buffer.from(chunk as Uint8Array));
    expect(Buffer.concat(chunks).equals(bytes.subarray(100, 200))).toBe(true);

    await files.deleteRecording('s2');
    expect(await bucketStore.list('recordings/s2/')).toEqual([]);
  }, 60_000);

  it('says a missing object is missing, leaving nothing in scratch', async () => {
    const layout = layoutIn('stored-s3-missing-');
    const files = new StoredFiles(bucketStore, layout);
    await expect(files.localOriginal('nobody', 'original.flac')).rejects.toBeInstanceOf(NotFoundError);
    expect(fs.readdirSync(layout.scratch)).toEqual([]);
    expect(files.copies.size).toBe(0);
  }, 60_000);

  it("sweeps only orphans older than the grace period: another node's fresh upload and every referenced recording stay", async () => {
    const layout = layoutIn('sweep-s3-');
    const files = new StoredFiles(bucketStore, layout);
    await files.storeOriginal('ref', 'original.flac', upload(layout, crypto.randomBytes(1000)));
    await files.writePeaks('ref', '{}');
    await files.storeOriginal('old', 'original.flac', upload(layout, crypto.randomBytes(1000)));
    // S3 keeps its own times: the grace is shortened here rather than the objects aged.
    await new Promise((r) => setTimeout(r, 3000));
    await files.storeOriginal('fresh', 'original.flac', upload(layout, crypto.randomBytes(1000)));
    fs.mkdirSync(path.join(layout.recording('deleted-elsewhere'), 'dubs'), { recursive: true });

    expect(await sweepOrphans(files, layout, known('ref'), { graceMs: 1500 })).toBe(2);
    expect((await bucketStore.list('recordings/')).sort()).toEqual(['recordings/fresh/original.flac', 'recordings/ref/original.flac', 'recordings/ref/peaks.json']);
    expect(fs.readdirSync(layout.recordings)).toEqual([]);
    // With the default hour nothing here is old enough.
    expect(await sweepOrphans(files, layout, known())).toBe(0);
    await files.deleteRecording('fresh');
    await files.deleteRecording('ref');
  }, 60_000);
});
