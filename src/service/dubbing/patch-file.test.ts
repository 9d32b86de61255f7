import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readPatchFile, writePatchFile } from './patch-file';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'takeline-patch-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('line patch files', () => {
  it('round-trip exactly and leave no temporary file', () => {
    const samples = Float32Array.from({ length: 2 * 4801 }, (_, i) => Math.sin(i / 7) * 0.3);
    const file = path.join(dir, 'line-3.patch');
    writePatchFile(file, { fadeIn: 960, fadeOut: 480, channels: 2, samples });
    expect(readPatchFile(file)).toEqual({ fadeIn: 960, fadeOut: 480, channels: 2, samples });
    expect(fs.readdirSync(dir)).toEqual(['line-3.patch']);
  });

  it('refuses a file that is not a whole patch', () => {
    const file = path.join(dir, 'bad.patch');
    fs.writeFileSync(file, Buffer.alloc(17));
    expect(() => readPatchFile(file)).toThrow(/not a line patch/);
  });
});
