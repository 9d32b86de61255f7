import { describe, expect, it } from 'vitest';
import { EXPORT_FORMATS as SERVED } from '../../../service/export/types';
import { EXPORT_FORMATS } from './types';

describe('the studio’s export menu', () => {
  it('offers every format the service exports, and the recording’s audio', () => {
    expect(EXPORT_FORMATS.map((f) => f.format).sort()).toEqual([...SERVED, 'wav'].sort());
    expect(new Set(EXPORT_FORMATS.map((f) => f.label)).size).toBe(EXPORT_FORMATS.length);
  });
});
