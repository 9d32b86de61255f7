import fs from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { S3ServiceException } from '@aws-sdk/client-s3';
import { FolderBlobStore } from './folder-blob-store';
import { isFolderUnreachable, isS3Unreachable, StorageUnavailableError, storageOutageOf } from './storage-unavailable';
import { tempDir } from '../../../../test/helpers/temp';

const errno = (code: string, message = code) => Object.assign(new Error(message), { code });
const s3 = (name: string, status: number) => new S3ServiceException({ name, $fault: status >= 500 ? 'server' : 'client', $metadata: { httpStatusCode: status } });

describe('which S3 failures are an outage', () => {
  it('network failures, also inside an AggregateError or a cause, 5xx answers and throttling', () => {
    for (const code of ['ECONNREFUSED', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET', 'EAI_AGAIN']) expect(isS3Unreachable(errno(code))).toBe(true);
    expect(isS3Unreachable(new AggregateError([errno('ECONNREFUSED'), errno('ECONNREFUSED')], ''))).toBe(true);
    expect(isS3Unreachable(new Error('request failed', { cause: errno('EHOSTUNREACH') }))).toBe(true);
    expect(isS3Unreachable(s3('InternalError', 500))).toBe(true);
    expect(isS3Unreachable(s3('ServiceUnavailable', 503))).toBe(true);
    expect(isS3Unreachable(s3('SlowDown', 503))).toBe(true);
    expect(isS3Unreachable(Object.assign(new Error('timed out'), { name: 'TimeoutError' }))).toBe(true);
  });

  it('not a refused request, a missing object or a programming error', () => {
    expect(isS3Unreachable(s3('NoSuchKey', 404))).toBe(false);
    expect(isS3Unreachable(s3('AccessDenied', 403))).toBe(false);
    expect(isS3Unreachable(s3('PreconditionFailed', 412))).toBe(false);
    expect(isS3Unreachable(new TypeError('x is undefined'))).toBe(false);
    expect(isS3Unreachable(errno('ENOENT'))).toBe(false);
    expect(isS3Unreachable(null)).toBe(false);
  });
});

describe('which folder failures are an outage', () => {
  it('an unreadable or lost volume is; a missing file or a full disk is not', () => {
    for (const code of ['EACCES', 'ENOTCONN', 'ESTALE', 'EROFS']) expect(isFolderUnreachable(errno(code))).toBe(true);
    // A failing disk (EIO) stays the service's fault (500): someone must look at it.
    for (const code of ['ENOENT', 'ENOSPC', 'EEXIST', 'EIO']) expect(isFolderUnreachable(errno(code))).toBe(false);
  });

  afterEach(() => vi.restoreAllMocks());

  it('the folder store throws StorageUnavailableError naming the folder when its volume cannot be read, and null for a missing object as before', async () => {
    const root = tempDir('takeline-folder-outage-');
    const store = new FolderBlobStore(root);
    await store.put('recordings/a/original.flac', 'audio');
    expect(await store.get('recordings/b/original.flac')).toBeNull();
    vi.spyOn(fs.promises, 'readFile').mockRejectedValue(errno('EACCES', `EACCES: permission denied, open '${root}/recordings/a/original.flac'`));
    vi.spyOn(fs.promises, 'stat').mockRejectedValue(errno('ENOTCONN', 'ENOTCONN: socket is not connected'));
    const failed = await store.get('recordings/a/original.flac').catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(StorageUnavailableError);
    expect((failed as StorageUnavailableError).reason).toBe(`folder ${root} is unavailable: EACCES: permission denied, open '${root}/recordings/a/original.flac'`);
    await expect(store.stat('recordings/a/original.flac')).rejects.toBeInstanceOf(StorageUnavailableError);
  });

  it('finds the outage behind an HTTP error it became', () => {
    const outage = new StorageUnavailableError('folder /srv', errno('ESTALE'));
    expect(storageOutageOf(outage)).toBe(outage);
    expect(storageOutageOf(Object.assign(new Error('x'), { cause: outage }))).toBe(outage);
    expect(storageOutageOf(new Error('x'))).toBeNull();
  });
});
