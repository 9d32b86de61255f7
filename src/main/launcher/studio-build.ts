import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Latest modification time (ms) of any file under the given directories; 0 when there are none. */
export function newestModification(dirs: string[]): number {
  let newest = 0;
  for (const dir of dirs) {
    let files: string[];
    try {
      files = readdirSync(dir, { recursive: true, encoding: 'utf8' });
    } catch {
      continue;
    }
    for (const file of files) {
      try {
        const stat = statSync(join(dir, file));
        if (stat.isFile()) newest = Math.max(newest, stat.mtimeMs);
      } catch {
        // Vanished while listing: ignore.
      }
    }
  }
  return newest;
}

/** The studio needs (re)building when its output is missing or older than any of its sources. */
export function studioNeedsBuild(builtIndexMtimeMs: number | null, newestSourceMtimeMs: number): boolean {
  return builtIndexMtimeMs === null || newestSourceMtimeMs > builtIndexMtimeMs;
}
