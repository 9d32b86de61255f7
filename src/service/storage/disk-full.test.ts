import { describe, expect, it } from 'vitest';
import { diskFullError, isDiskFull } from './disk-full';
import { renderError } from '../http/errors';

describe('disk full', () => {
  it('recognizes ENOSPC, EDQUOT and SQLITE_FULL only', () => {
    expect(isDiskFull(Object.assign(new Error('no space'), { code: 'ENOSPC' }))).toBe(true);
    expect(isDiskFull(Object.assign(new Error('quota'), { code: 'EDQUOT' }))).toBe(true);
    expect(isDiskFull(Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' }))).toBe(true);
    expect(isDiskFull(Object.assign(new Error('io'), { code: 'EIO' }))).toBe(false);
    expect(isDiskFull(null)).toBe(false);
  });

  it('is a storage-full error (507 over HTTP) that says nothing was stored', () => {
    const error = diskFullError();
    expect(error).toMatchObject({ kind: 'storage_full', message: expect.stringMatching(/full: nothing was stored/) });
    expect(renderError(error, 'fastapi').status).toBe(507);
  });
});
