import { describe, expect, it } from 'vitest';
import { diskFullError, isDiskFull } from './disk-full';

describe('disk full', () => {
  it('recognizes ENOSPC, EDQUOT and SQLITE_FULL only', () => {
    expect(isDiskFull(Object.assign(new Error('no space'), { code: 'ENOSPC' }))).toBe(true);
    expect(isDiskFull(Object.assign(new Error('quota'), { code: 'EDQUOT' }))).toBe(true);
    expect(isDiskFull(Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' }))).toBe(true);
    expect(isDiskFull(Object.assign(new Error('io'), { code: 'EIO' }))).toBe(false);
    expect(isDiskFull(null)).toBe(false);
  });

  it('is a 507 that says nothing was stored', () => {
    expect(diskFullError()).toMatchObject({ status: 507, message: expect.stringMatching(/full: nothing was stored/) });
  });
});
