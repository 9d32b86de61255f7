import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** One file of a model folder under TAKELINE_MODELS_DIR, as its README lists it. */
export interface ModelFileSpec {
  /** Folder under the models directory, e.g. `yamnet`. */
  folder: string;
  file: string;
  sha256: string;
}

/** A model file that is missing, altered or not configured; the message names the folder and what to do. */
export class ModelFileError extends Error {}

// Hashing 15 MB takes ~50 ms: verify once per file version (path, size, mtime) per process.
const verified = new Map<string, string>();

/**
 * The absolute path of a model file after checking its sha256 against the published value. Throws a
 * ModelFileError naming the folder when the models directory is not configured, the file is missing, or
 * its checksum differs (a partial download, a different model).
 */
export function verifiedModelFile(modelsDir: string | null, spec: ModelFileSpec): string {
  if (!modelsDir) {
    throw new ModelFileError(`The ${spec.folder} model is not installed: set TAKELINE_MODELS_DIR to the models folder that holds ${spec.folder}/${spec.file}.`);
  }
  const file = path.join(modelsDir, spec.folder, spec.file);
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch {
    throw new ModelFileError(`The ${spec.folder} model is missing: ${spec.folder}/${spec.file} was not found in ${modelsDir}.`);
  }
  const version = `${spec.sha256}:${stat.size}:${stat.mtimeMs}`;
  if (verified.get(file) === version) return file;
  const digest = crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');
  if (digest !== spec.sha256) {
    throw new ModelFileError(
      `The ${spec.folder} model file ${spec.folder}/${spec.file} is damaged or a different version (sha256 ${digest.slice(0, 12)}…, expected ${spec.sha256.slice(0, 12)}…); install it again.`,
    );
  }
  verified.set(file, version);
  return file;
}

/** True when every file is present (a cheap check for listings; use verifiedModelFile before loading). */
export function modelFilesPresent(modelsDir: string | null, specs: ModelFileSpec[]): boolean {
  return modelsDir !== null && specs.every((s) => fs.existsSync(path.join(modelsDir, s.folder, s.file)));
}
