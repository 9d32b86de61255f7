import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { newestModification, studioNeedsBuild } from './studio-build';

describe('studioNeedsBuild', () => {
  it('builds when the output is missing or older than the sources', () => {
    expect(studioNeedsBuild(null, 0)).toBe(true);
    expect(studioNeedsBuild(1_000, 2_000)).toBe(true);
    expect(studioNeedsBuild(2_000, 2_000)).toBe(false);
  });
});

describe('newestModification', () => {
  let dir: string | undefined;
  afterEach(() => dir && rmSync(dir, { recursive: true, force: true }));

  it('finds the newest file in nested folders and ignores missing ones', () => {
    dir = mkdtempSync(join(tmpdir(), 'takeline-mtime-'));
    mkdirSync(join(dir, 'a/b'), { recursive: true });
    writeFileSync(join(dir, 'old.ts'), '');
    writeFileSync(join(dir, 'a/b/new.ts'), '');
    utimesSync(join(dir, 'old.ts'), 1_000, 1_000);
    utimesSync(join(dir, 'a/b/new.ts'), 5_000, 5_000);
    expect(newestModification([dir, join(dir, 'missing')])).toBe(5_000_000);
    expect(newestModification([join(dir, 'missing')])).toBe(0);
  });
});
