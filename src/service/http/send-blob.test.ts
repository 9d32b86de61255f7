import { describe, expect, it } from 'vitest';
import { requestedByteRange } from './send-blob';

describe('requestedByteRange', () => {
  it('reads one range: closed, open-ended, suffix, clipped to the end', () => {
    expect(requestedByteRange('bytes=100-199', 1000)).toEqual({ start: 100, end: 199 });
    expect(requestedByteRange('bytes=900-', 1000)).toEqual({ start: 900, end: 999 });
    expect(requestedByteRange('bytes=-100', 1000)).toEqual({ start: 900, end: 999 });
    expect(requestedByteRange('bytes=-5000', 1000)).toEqual({ start: 0, end: 999 });
    expect(requestedByteRange('bytes=990-5000', 1000)).toEqual({ start: 990, end: 999 });
  });

  it('answers the whole object for no header, other units, several ranges or nonsense', () => {
    for (const header of [undefined, '', 'items=0-1', 'bytes=0-1,5-6', 'bytes=-', 'bytes=5-2', 'bytes=a-b']) {
      expect(requestedByteRange(header, 1000), String(header)).toBeNull();
    }
  });

  it('says a range starting past the end cannot be satisfied', () => {
    expect(requestedByteRange('bytes=1000-', 1000)).toBe('unsatisfiable');
    expect(requestedByteRange('bytes=-0', 1000)).toBe('unsatisfiable');
    expect(requestedByteRange('bytes=0-', 0)).toBe('unsatisfiable');
  });
});
