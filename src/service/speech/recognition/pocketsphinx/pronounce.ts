import { execFile } from 'node:child_process';
import { ipaToArpabet } from './ipa-arpabet';

/**
 * Pronunciations for words the dictionary lacks, from espeak-ng's English (US, unless another `voice` is
 * asked for) letter-to-sound rules and exceptions list, as IPA mapped to the recognizer's phones. Each word
 * is said alone, so it comes back in its citation form. A word espeak-ng cannot say, or whose IPA has a
 * symbol the mapping does not know, is left out. Null when espeak-ng is not installed.
 */
export async function espeakPronunciations(
  words: readonly string[],
  program = 'espeak-ng',
  signal?: AbortSignal,
  voice = 'en-us',
): Promise<Map<string, string[]> | null> {
  const out = new Map<string, string[]>();
  for (const word of words) {
    let ipa: string;
    try {
      ipa = await run(program, ['-q', '--ipa', '-v', voice, word], signal);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      if (signal?.aborted) throw error;
      continue;
    }
    // One word can come back as several (espeak splits "mcallister's" rarely); their phones run together.
    const phones = ipaToArpabet(ipa.trim().replace(/\s+/g, ''));
    if (phones) out.set(word, phones);
  }
  return out;
}

function run(program: string, args: string[], signal?: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(program, args, { timeout: 10_000, signal, encoding: 'utf8' }, (error, stdout) => (error ? reject(error) : resolve(stdout)));
  });
}
