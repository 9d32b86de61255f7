import { describe, expect, it } from 'vitest';
import { decodeRow, encodeRow } from './format';

describe('backup rows as JSON lines', () => {
  it('round-trips text, numbers, null and bytes', () => {
    const row = { id: 's1', duration: 12.345678901234567, count: 9007199254740991, error: null, transcript_gz: Buffer.from([0, 1, 2, 255]), text: 'line\nwith "quotes" and {braces}' };
    const line = encodeRow(row);
    expect(line).not.toContain('\n');
    expect(JSON.parse(line).transcript_gz).toEqual({ $bytes: 'AAEC/w==' });
    expect(decodeRow(line)).toEqual(row);
  });

  it('refuses an object that is not bytes', () => {
    expect(() => decodeRow('{"a":{"b":1}}')).toThrow(/not bytes/);
  });
});
