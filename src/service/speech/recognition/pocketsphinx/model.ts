import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';
import { processEnvironment } from '../../../config';

/**
 * Where PocketSphinx and its US English model live. The defaults are the Debian packages' locations
 * (`pocketsphinx`, `pocketsphinx-en-us`); TAKELINE_POCKETSPHINX_MODEL_DIR points at another model folder
 * laid out the same way (acoustic model in `en-us/`, `en-us.lm.bin`, `cmudict-en-us.dict`), and
 * TAKELINE_POCKETSPHINX_BATCH names another `pocketsphinx_batch` binary.
 */
export interface PocketSphinxModel {
  /** The model folder. */
  dir: string;
  /** Acoustic model folder (-hmm). */
  hmm: string;
  /** Trigram language model (-lm). */
  lm: string;
  /** Pronunciation dictionary (-dict). */
  dict: string;
  /** The pocketsphinx_batch program. */
  batch: string;
}

export const DEFAULT_MODEL_DIR = '/usr/share/pocketsphinx/model/en-us';
const INSTALL_HINT = 'Install the Debian/Ubuntu packages: apt-get install -y pocketsphinx pocketsphinx-en-us';

export function resolvePocketSphinxModel(env: NodeJS.ProcessEnv = processEnvironment()): PocketSphinxModel {
  const dir = env.TAKELINE_POCKETSPHINX_MODEL_DIR || DEFAULT_MODEL_DIR;
  return {
    dir,
    hmm: path.join(dir, 'en-us'),
    lm: path.join(dir, 'en-us.lm.bin'),
    dict: path.join(dir, 'cmudict-en-us.dict'),
    batch: env.TAKELINE_POCKETSPHINX_BATCH || 'pocketsphinx_batch',
  };
}

/** The program's path when it is executable, by name on PATH or as given; undefined otherwise. */
export function findOnPath(program: string, env: NodeJS.ProcessEnv): string | undefined {
  if (program.includes('/')) return isExecutable(program) ? program : undefined;
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, program);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

function exists(file: string): boolean {
  try {
    accessSync(file, constants.R_OK);
    return true;
  } catch {
    return false;
  }
}

export interface Availability {
  ok: boolean;
  /** What is missing, each with how to get it. */
  missing?: string[];
}

/** Cheap check (no model load) for the model registry: are the program and the model files there? */
export function pocketSphinxAvailable(env: NodeJS.ProcessEnv = processEnvironment()): Availability {
  const model = resolvePocketSphinxModel(env);
  const missing: string[] = [];
  if (!findOnPath(model.batch, env)) {
    missing.push(`program ${model.batch} (Debian package pocketsphinx, or set TAKELINE_POCKETSPHINX_BATCH)`);
  }
  for (const [what, file] of [
    ['acoustic model', path.join(model.hmm, 'mdef')],
    ['language model', model.lm],
    ['dictionary', model.dict],
  ] as const) {
    if (!exists(file)) {
      missing.push(
        `${what} ${file} (Debian package pocketsphinx-en-us, or set TAKELINE_POCKETSPHINX_MODEL_DIR)`,
      );
    }
  }
  return missing.length ? { ok: false, missing } : { ok: true };
}

/** Throws an error that says what to install when PocketSphinx cannot run. */
export function assertPocketSphinxAvailable(env: NodeJS.ProcessEnv = processEnvironment()): PocketSphinxModel {
  const availability = pocketSphinxAvailable(env);
  if (!availability.ok) {
    throw new Error(
      `PocketSphinx is not available: missing ${availability.missing!.join('; ')}. ${INSTALL_HINT}.`,
    );
  }
  return resolvePocketSphinxModel(env);
}
