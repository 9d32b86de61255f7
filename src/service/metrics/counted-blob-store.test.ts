import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FolderBlobStore } from '../storage/blobs/folder-blob-store';
import { countedBlobStore } from './counted-blob-store';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe('countedBlobStore', () => {
  it('counts failed operations by name; answers, absences and the store’s own kind pass through', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'takeline-counted-'));
    dirs.push(root);
    const failed: string[] = [];
    const store = countedBlobStore(new FolderBlobStore(root), (operation) => failed.push(operation));
    expect(store).toBeInstanceOf(FolderBlobStore);
    expect(store.root).toBe(root);
    await store.put('a/b.txt', 'hello');
    expect((await store.get('a/b.txt'))?.toString()).toBe('hello');
    expect(await store.get('a/missing.txt')).toBeNull();
    expect(await store.stat('missing')).toBeNull();
    expect(failed).toEqual([]);
    // Reading a folder as an object, and the folder gone with a file in its place: each failure is counted.
    await expect(store.get('a')).rejects.toThrow(/EISDIR/);
    fs.rmSync(root, { recursive: true });
    fs.writeFileSync(root, 'not a folder');
    await expect(store.put('a/c.txt', 'x')).rejects.toThrow();
    expect(failed).toEqual(['get', 'put']);
    fs.rmSync(root);
  });
});
