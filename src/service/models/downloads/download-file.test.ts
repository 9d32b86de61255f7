import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../../../test/helpers/temp';
import { DownloadError, downloadFile, partialPath, sha1OfFile } from './download-file';
import { serveFile, sha1, testBytes, type FileServer } from './test-server.testutil';

const FILE = 'ggml-test.bin';
const data = testBytes(3 * 1024 * 1024 + 123);
const SHA1 = sha1(data);

async function failure(promise: Promise<unknown>): Promise<DownloadError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof DownloadError) return error;
    throw error;
  }
  throw new Error('the download did not fail');
}

describe('downloadFile (resumable, verified, atomic)', () => {
  let server: FileServer;
  beforeAll(async () => {
    server = await serveFile(FILE, data);
  });
  afterAll(() => server.close());

  it('reports progress up to the size the server announced and installs the verified file', async () => {
    const dest = path.join(tempDir('takeline-dl-'), 'whisper', FILE);
    const progress: Array<[number, number | null]> = [];
    let start: unknown = null;
    await downloadFile({ url: `${server.url}/${FILE}`, dest, sha1: SHA1, onStart: (info) => (start = info), onProgress: (r, t) => progress.push([r, t]) });
    expect(start).toEqual({ totalBytes: data.length, resumedFrom: 0 });
    expect(progress.length).toBeGreaterThan(10);
    for (let i = 1; i < progress.length; i++) expect(progress[i]![0]).toBeGreaterThanOrEqual(progress[i - 1]![0]);
    expect(progress.at(-1)).toEqual([data.length, data.length]);
    expect(fs.readFileSync(dest).equals(data)).toBe(true);
    expect(fs.existsSync(partialPath(dest))).toBe(false);
    expect(await sha1OfFile(dest)).toBe(SHA1);
  });

  it('resumes after a cut connection with a Range request, keeping the bytes it had', async () => {
    const dest = path.join(tempDir('takeline-dl-'), FILE);
    const before = server.sentBytes();
    server.ranges.length = 0;
    server.cutNextAfter(1_000_000);
    const cut = await failure(downloadFile({ url: `${server.url}/${FILE}`, dest, sha1: SHA1 }));
    expect(cut.code).toBe('network_error');
    expect(fs.existsSync(dest)).toBe(false);
    const kept = fs.statSync(partialPath(dest)).size;
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThanOrEqual(1_000_000);

    let resumedFrom = -1;
    await downloadFile({ url: `${server.url}/${FILE}`, dest, sha1: SHA1, onStart: (info) => (resumedFrom = info.resumedFrom) });
    expect(resumedFrom).toBe(kept);
    expect(server.ranges).toEqual(['', `bytes=${kept}-`]);
    // The second request sent only what the part lacked.
    expect(server.sentBytes() - before).toBe(1_000_000 + (data.length - kept));
    expect(fs.readFileSync(dest).equals(data)).toBe(true);
  });

  it('starts over when the server ignores the Range header', async () => {
    const dest = path.join(tempDir('takeline-dl-'), FILE);
    fs.writeFileSync(partialPath(dest), data.subarray(0, 5000));
    server.ignoreRanges = true;
    try {
      await downloadFile({ url: `${server.url}/${FILE}`, dest, sha1: SHA1 });
    } finally {
      server.ignoreRanges = false;
    }
    expect(fs.readFileSync(dest).equals(data)).toBe(true);
  });

  it('a part that already holds the whole file is verified and installed without a transfer', async () => {
    const dest = path.join(tempDir('takeline-dl-'), FILE);
    fs.writeFileSync(partialPath(dest), data);
    const before = server.sentBytes();
    await downloadFile({ url: `${server.url}/${FILE}`, dest, sha1: SHA1 });
    expect(server.sentBytes()).toBe(before);
    expect(fs.readFileSync(dest).equals(data)).toBe(true);
  });

  it('refuses a file whose SHA-1 is not the published one, and deletes it', async () => {
    const dest = path.join(tempDir('takeline-dl-'), FILE);
    const error = await failure(downloadFile({ url: `${server.url}/${FILE}`, dest, sha1: 'c78c86eb1a8faa21b369bcd33207cc90d64ae9df' }));
    expect(error.code).toBe('checksum_mismatch');
    expect(error.message).toContain(SHA1);
    expect(fs.existsSync(dest)).toBe(false);
    expect(fs.existsSync(partialPath(dest))).toBe(false);
  });

  it('refuses before writing when the disk has less free space than the file needs', async () => {
    const dest = path.join(tempDir('takeline-dl-'), FILE);
    const error = await failure(downloadFile({ url: `${server.url}/${FILE}`, dest, sha1: SHA1, freeBytes: () => 10 * 1024 * 1024 }));
    expect(error.code).toBe('disk_full');
    expect(error.message).toMatch(/Not enough free space .* needs 3\.0 MiB more/);
    expect(fs.existsSync(partialPath(dest))).toBe(false);
  });

  it('stops with disk_full when a write fails with ENOSPC (the part is /dev/full)', async () => {
    const dir = tempDir('takeline-dl-');
    const dest = path.join(dir, FILE);
    fs.symlinkSync('/dev/full', partialPath(dest));
    const error = await failure(downloadFile({ url: `${server.url}/${FILE}`, dest, sha1: SHA1 }));
    expect(error.code).toBe('disk_full');
    expect(error.message).toMatch(/is full/);
    expect(fs.existsSync(dest)).toBe(false);
  });

  it('names an unreachable server and an HTTP error', async () => {
    const dest = path.join(tempDir('takeline-dl-'), FILE);
    expect((await failure(downloadFile({ url: `${server.url}/missing.bin`, dest, sha1: SHA1 }))).status).toBe(404);
    const closed = await failure(downloadFile({ url: 'http://127.0.0.1:9/x.bin', dest, sha1: SHA1 }));
    expect(closed.code).toBe('network_error');
    expect(closed.message).toMatch(/Could not reach 127\.0\.0\.1:9/);
  });

  it('a read-only folder is refused as not writable', async () => {
    if (process.getuid?.() === 0) {
      // root writes anywhere; a folder under a file cannot be created by anyone.
      const file = path.join(tempDir('takeline-dl-'), 'a-file');
      fs.writeFileSync(file, '');
      const error = await failure(downloadFile({ url: `${server.url}/${FILE}`, dest: path.join(file, 'whisper', FILE), sha1: SHA1 }));
      expect(error.code).toBe('not_writable');
      return;
    }
    const dir = tempDir('takeline-dl-');
    fs.chmodSync(dir, 0o500);
    const error = await failure(downloadFile({ url: `${server.url}/${FILE}`, dest: path.join(dir, FILE), sha1: SHA1 }));
    expect(error.code).toBe('not_writable');
  });

  it('a cancelled download keeps its part for resuming', async () => {
    const slow = await serveFile(FILE, data, { pauseMs: 20 });
    try {
      const dest = path.join(tempDir('takeline-dl-'), FILE);
      const controller = new AbortController();
      const pending = downloadFile({
        url: `${slow.url}/${FILE}`,
        dest,
        sha1: SHA1,
        signal: controller.signal,
        onProgress: (received) => {
          if (received > 500_000) controller.abort();
        },
      });
      expect((await failure(pending)).code).toBe('cancelled');
      expect(fs.statSync(partialPath(dest)).size).toBeGreaterThan(500_000);
    } finally {
      await slow.close();
    }
  });
});
