import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3BlobStore } from '../../src/service/storage/blobs/s3-blob-store';
import { openDatabase } from '../../src/service/storage/database';
import { SqliteSql } from '../../src/service/storage/sql/sqlite-sql';
import { SqlWhisperModelStore } from '../../src/service/storage/whisper-model-store';
import { TeamWhisperModels, whisperBlobKey } from '../../src/service/models/whisper/team-models';
import { cephInstalled, startS3, type ThrowawayS3 } from '../helpers/s3';
import { tempDir } from '../helpers/temp';

// A team's Whisper models on an S3 store (a real gateway): stored by one node (two parts of a multipart upload: beyond the 8 MiB part size),
// fetched and checked by another, removed for both (test/team/team-whisper-models.test.ts does it on a folder store).
describe.skipIf(!cephInstalled())('team Whisper models on S3', () => {
  let gateway: ThrowawayS3 | null = null;
  let blobs: S3BlobStore;
  beforeAll(async () => {
    gateway = await startS3();
    blobs = await gateway.bucket('takeline-models', 'team/');
  }, 300_000);
  afterAll(async () => {
    await gateway?.stop();
  });

  it('publishes, fetches a verified copy on another node, and removes it for the team', { timeout: 300_000 }, async () => {
    const data = crypto.randomBytes(9 * 1024 * 1024 + 3);
    const sha256 = crypto.createHash('sha256').update(data).digest('hex');
    const db = openDatabase(path.join(tempDir('takeline-s3-models-'), 'takeline.db'));
    try {
      const store = new SqlWhisperModelStore(new SqliteSql(db));
      const node = () => new TeamWhisperModels({ store, blobs, cacheDir: path.join(tempDir('takeline-s3-node-'), 'whisper', 'team') });
      const [a, b] = [node(), node()];
      const download = path.join(tempDir('takeline-s3-download-'), 'ggml-tiny.en.bin');
      fs.writeFileSync(download, data);
      const record = await a.publish({ name: 'tiny.en', file: 'ggml-tiny.en.bin', sha1: crypto.createHash('sha1').update(data).digest('hex') }, download);
      expect(record.key).toBe(whisperBlobKey(sha256, 'ggml-tiny.en.bin'));
      expect((await blobs.stat(record.key))?.size).toBe(data.length);
      expect((await a.verifyStored('tiny.en')).sha256).toBe(sha256);

      await b.refresh();
      const copy = await b.localFile('tiny.en');
      expect(crypto.createHash('sha256').update(fs.readFileSync(copy)).digest('hex')).toBe(sha256);

      await a.remove('tiny.en');
      expect(await blobs.stat(record.key)).toBeNull();
      await b.refresh();
      expect(fs.existsSync(copy)).toBe(false);
    } finally {
      db.close();
    }
  });
});
