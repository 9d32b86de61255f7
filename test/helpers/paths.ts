import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const sharedDir = process.env.TAKELINE_SHARED_DIR ? path.resolve(process.env.TAKELINE_SHARED_DIR) : path.resolve(repoRoot, '../shared');
export const audioDir = path.join(sharedDir, 'audio');
export const modelsDir = path.join(sharedDir, 'models');
