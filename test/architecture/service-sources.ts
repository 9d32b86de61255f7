import fs from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../helpers/paths';

export const serviceDir = path.join(repoRoot, 'src', 'service');

/** The service's source files (tests and their utilities aside), relative to src/service. */
export function serviceSources(dir = serviceDir): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return serviceSources(full);
    if (!/\.tsx?$/.test(entry.name) || /\.(test|testutil)\.tsx?$/.test(entry.name)) return [];
    return [path.relative(serviceDir, full)];
  });
}
