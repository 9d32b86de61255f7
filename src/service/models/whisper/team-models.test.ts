import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../../test/helpers/temp';
import { FolderBlobStore } from '../../storage/blobs/folder-blob-store';
import { SqlWhisperModelStore } from '../../storage/whisper-model-store';
import { sha1, testBytes } from '../downloads/test-server.testutil';
import { TeamWhisperModels, whisperBlobKey } from './team-models';
import { teamWhisperStore } from './team-store.testutil';

const data = testBytes(1024 * 1024 + 11, 'team-model');
const SHA256 = crypto.createHash('sha256').update(data).digest('hex');
const MODEL = { name: 'tiny.en', file: 'ggml-tiny.en.bin', sha1: sha1(data) };

/** A folder blob store that counts downloads (how many times a node fetched a model). */
class CountingBlobs extends FolderBlobStore {
  downloads = 0;
  override async download(key: string, file: string): Promise<boolean> {
    this.downloads++;
    return super.download(key, file);
  }
}

/** Two nodes of one team: one database, one storage, a cache folder each. */
function team() {
  const { sql, store } = teamWhisperStore();
  const blobs = new CountingBlobs(tempDir('takeline-team-storage-'));
  const node = () => new TeamWhisperModels({ store, blobs, cacheDir: path.join(tempDir('takeline-node-'), 'whisper', 'team') });
  return { sql, store, blobs, a: node(), b: node() };
}

/** A verified download on node A, published for the team. */
async function published(t: ReturnType<typeof team>) {
  const download = path.join(tempDir('takeline-download-'), MODEL.file);
  fs.writeFileSync(download, data);
  const record = await t.a.publish(MODEL, download);
  return { record, download };
}

describe('TeamWhisperModels', () => {
  it('publishing stores the file under its sha256 and records it; the downloading node (an API node) keeps no copy', async () => {
    const t = team();
    const { record, download } = await published(t);
    expect(record).toMatchObject({ name: 'tiny.en', sha256: SHA256, sha1: MODEL.sha1, bytes: data.length, key: whisperBlobKey(SHA256, MODEL.file) });
    expect((await t.blobs.get(record.key))!.equals(data)).toBe(true);
    expect(await t.store.get('tiny.en')).toEqual(record);
    expect(fs.existsSync(download)).toBe(false);
    expect(fs.existsSync(t.a.cacheDir)).toBe(false);
    expect((await t.a.verifyStored('tiny.en')).sha256).toBe(SHA256);
    expect(t.blobs.downloads).toBe(0);
    expect(fs.existsSync(t.a.cacheDir)).toBe(false);
  });

  it('another node knows the model once refreshed, and fetches one verified copy for concurrent users', async () => {
    const t = team();
    await published(t);
    await expect(t.b.localFile('tiny.en')).rejects.toMatchObject({ kind: 'not_found' });
    await t.b.refresh();
    const record = t.b.record('tiny.en')!;
    const files = await Promise.all([t.b.localFile('tiny.en'), t.b.localFile('tiny.en'), t.b.localFile('tiny.en')]);
    expect(new Set(files)).toEqual(new Set([t.b.localPath(record)]));
    expect(t.blobs.downloads).toBe(1);
    expect(fs.readFileSync(files[0]!).equals(data)).toBe(true);
    // Only the file itself: the part it was written to was renamed.
    expect(fs.readdirSync(path.dirname(files[0]!))).toEqual([MODEL.file]);
    await t.b.localFile('tiny.en');
    expect(t.blobs.downloads).toBe(1);
  });

  it('a damaged stored file is refused and leaves no copy; an altered local copy is fetched again', async () => {
    const t = team();
    const { record } = await published(t);
    await t.b.refresh();
    const damaged = Buffer.from(data);
    damaged[1000] = damaged[1000]! ^ 0xff;
    await t.blobs.put(record.key, damaged);
    await expect(t.a.verifyStored('tiny.en')).rejects.toMatchObject({ kind: 'upstream_failed', detail: { code: 'checksum_mismatch' } });
    await expect(t.b.localFile('tiny.en')).rejects.toMatchObject({ kind: 'upstream_failed', detail: { code: 'checksum_mismatch' } });
    expect(fs.readdirSync(path.dirname(t.b.localPath(record)))).toEqual([]);

    await t.blobs.put(record.key, data);
    const local = await t.b.localFile('tiny.en');
    fs.writeFileSync(local, damaged);
    expect(fs.readFileSync(await t.b.localFile('tiny.en')).equals(data)).toBe(true);
    expect(t.blobs.downloads).toBe(3);
  });

  it('a refresh asked while another is under way reads again after it (the one under way may predate a change)', async () => {
    const t = team();
    let open: () => void = () => {};
    const gate = new Promise<void>((resolve) => (open = resolve));
    // A read that has its rows but is slow to finish.
    class Slow extends SqlWhisperModelStore {
      override async list() {
        const rows = await super.list();
        await gate;
        return rows;
      }
    }
    const slow = new Slow(t.sql);
    const node = new TeamWhisperModels({ store: slow, blobs: t.blobs, cacheDir: path.join(tempDir('takeline-node-'), 'team') });
    const first = node.refresh();
    await new Promise((r) => setTimeout(r, 50));
    await published(t);
    const second = node.refresh();
    expect(node.refresh()).toBe(second);
    open();
    await first;
    await second;
    expect(node.record('tiny.en')).not.toBeNull();
  });

  it('a copy that does not fit on this node’s disk is refused before any byte is written', async () => {
    const t = team();
    await published(t);
    const full = new TeamWhisperModels({ store: t.store, blobs: t.blobs, cacheDir: path.join(tempDir('takeline-node-'), 'team'), freeBytes: () => 10 * 1024 * 1024 });
    await full.refresh();
    await expect(full.localFile('tiny.en')).rejects.toMatchObject({ kind: 'storage_full', detail: { code: 'disk_full' }, message: expect.stringMatching(/Not enough free space/) });
    expect(t.blobs.downloads).toBe(0);
  });

  it('a node whose models folder cannot be written says so', async () => {
    const t = team();
    await published(t);
    // Root writes anywhere; a folder under a file cannot be made by anyone.
    const file = path.join(tempDir('takeline-node-'), 'a-file');
    fs.writeFileSync(file, '');
    const node = new TeamWhisperModels({ store: t.store, blobs: t.blobs, cacheDir: path.join(file, 'whisper', 'team') });
    await node.refresh();
    await expect(node.localFile('tiny.en')).rejects.toMatchObject({ kind: 'unavailable', detail: { code: 'not_writable' }, message: expect.stringMatching(/not writable.*TAKELINE_MODELS_DIR/) });
  });

  it('a stored file gone from the storage is named as missing', async () => {
    const t = team();
    const { record } = await published(t);
    await t.blobs.delete(record.key);
    await t.b.refresh();
    await expect(t.b.localFile('tiny.en')).rejects.toMatchObject({ kind: 'not_found', detail: { code: 'file_missing' } });
  });

  it('removing uninstalls for the team: record and stored file at once, other nodes’ copies on their next refresh', async () => {
    const t = team();
    const { record } = await published(t);
    await t.b.refresh();
    const copyB = await t.b.localFile('tiny.en');
    expect(await t.a.remove('tiny.en')).toEqual(record);
    expect(await t.store.list()).toEqual([]);
    expect(await t.blobs.stat(record.key)).toBeNull();
    expect(fs.existsSync(path.dirname(t.a.localPath(record)))).toBe(false);
    expect(fs.existsSync(copyB)).toBe(true);
    await t.b.refresh();
    expect(t.b.record('tiny.en')).toBeNull();
    expect(fs.existsSync(path.dirname(copyB))).toBe(false);
    expect(await t.a.remove('tiny.en')).toBeNull();
  });
});
