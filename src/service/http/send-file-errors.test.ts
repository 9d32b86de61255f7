import { describe, expect, it } from 'vitest';
import createHttpError from 'http-errors';
import { sendFileFailure } from './send-file-errors';
import { storageOutageOf } from '../storage/blobs/storage-unavailable';

describe('sendFileFailure', () => {
  it('maps a range beyond the end to 416 keeping Content-Range', () => {
    const failure = sendFileFailure(createHttpError(416, { headers: { 'Content-Range': 'bytes */1200' } }), 'gone');
    expect(failure?.status).toBe(416);
    expect(failure?.options.headers).toEqual({ 'Content-Range': 'bytes */1200' });
  });

  it('maps a missing file to 404 with the given message, a stale precondition to 412', () => {
    expect(sendFileFailure(createHttpError(404), 'The recording file is missing.')).toMatchObject({ status: 404, message: 'The recording file is missing.' });
    expect(sendFileFailure(Object.assign(new Error('nope'), { code: 'ENOENT' }), 'gone')?.status).toBe(404);
    expect(sendFileFailure(createHttpError(412), 'gone')?.status).toBe(412);
  });

  it('treats a read error as the service fault (500) without its wording, and a departed client as nothing to answer', () => {
    const failure = sendFileFailure(Object.assign(new Error('EIO: /data/recordings/x'), { code: 'EIO' }), 'gone');
    expect(failure?.status).toBe(500);
    expect(failure?.message).not.toContain('/data');
    expect(sendFileFailure(Object.assign(new Error('aborted'), { code: 'ECONNABORTED' }), 'gone')).toBeNull();
  });

  it('answers a folder that cannot be read (permissions, a lost mount) as the storage unavailable: 503 with Retry-After, the cause kept for the log', () => {
    const cause = Object.assign(new Error("EACCES: permission denied, open '/srv/media/recordings/x/original.flac'"), { code: 'EACCES' });
    const failure = sendFileFailure(cause, 'gone');
    expect(failure?.status).toBe(503);
    expect(failure?.options.headers).toEqual({ 'Retry-After': '30' });
    expect(failure?.message).not.toContain('/srv');
    expect(storageOutageOf(failure)?.reason).toMatch(/EACCES: permission denied/);
  });
});
