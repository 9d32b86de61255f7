import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import path from 'node:path';
import { tempDir } from './temp';

/** Debian's LibreOffice (libreoffice-calc), headless; the tests that edit a sheet with it are skipped without it. */
export function hasLibreOffice(): boolean {
  try {
    execFileSync('soffice', ['--version'], { stdio: 'ignore', timeout: 120_000 });
    return true;
  } catch {
    return false;
  }
}

/**
 * Converts a file with LibreOffice headless (its own user profile, so parallel runs do not share one) and
 * returns the converted bytes. `filter` is the `--convert-to` argument, `infilter` the import filter.
 */
export async function sofficeConvert(input: Buffer, inputName: string, filter: string, infilter?: string): Promise<Buffer> {
  const dir = tempDir('takeline-soffice-');
  const file = path.join(dir, inputName);
  fs.writeFileSync(file, input);
  const out = path.join(dir, 'out');
  // Not synchronous: the test's connections to the service stay served while Calc works (tens of seconds).
  await promisify(execFile)(
    'soffice',
    [`-env:UserInstallation=file://${path.join(dir, 'profile')}`, '--headless', ...(infilter ? [`--infilter=${infilter}`] : []), '--convert-to', filter, '--outdir', out, file],
    { timeout: 300_000 },
  );
  const [made] = fs.readdirSync(out);
  if (!made) throw new Error(`soffice made nothing from ${inputName}`);
  return fs.readFileSync(path.join(out, made));
}

/** CSV out of a spreadsheet: comma, double quote, UTF-8 (76), every cell as shown. */
export const CSV_UTF8 = 'csv:Text - txt - csv (StarCalc):44,34,76,1';
/** Reading CSV in: comma, double quote, UTF-8, from line 1 (a supervisor opening the sheet in Calc). */
export const CSV_UTF8_IN = 'Text - txt - csv (StarCalc):44,34,76,1';
