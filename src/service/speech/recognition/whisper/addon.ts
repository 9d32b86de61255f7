import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

let built = false;

/**
 * What is missing for Whisper to run, or null: smart-whisper is an optional dependency that compiles its
 * bundled whisper.cpp at install time, so a machine without a C++ toolchain installs without it.
 * A cheap file check (the add-on is loaded only in the Whisper host process).
 */
export function smartWhisperMissing(): string | null {
  if (built) return null;
  let main: string;
  try {
    main = createRequire(import.meta.url).resolve('smart-whisper');
  } catch {
    return 'the npm package smart-whisper is not installed (npm install, with g++, make and python3 present)';
  }
  const addon = path.join(path.dirname(main), '..', 'build', 'Release', 'smart-whisper.node');
  if (!fs.existsSync(addon)) return 'smart-whisper was not built (run `npm rebuild smart-whisper` with g++, make and python3 installed)';
  built = true;
  return null;
}
