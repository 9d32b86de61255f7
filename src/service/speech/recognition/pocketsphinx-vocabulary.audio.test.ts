import path from 'node:path';
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { audioDir } from '../../../../test/helpers/paths';
import { decodeAudioToArray } from '../../media/decode';
import { resolveMediaTools } from '../../media/tools';
import { normalizeWords, sumWer, wordErrorRate } from '../scoring/wer';
import { createPocketSphinxRecognizer, pocketSphinxAvailable } from './pocketsphinx-recognizer';
import { findOnPath } from './pocketsphinx/model';

/**
 * Real recordings (LJSpeech and an amateur reader) whose references name people and places the
 * pronunciation dictionary lacks. One prompt, as a user would write it for a project on early printing,
 * must make the recognizer write more of those names and fewer errors overall than no prompt.
 */
const FILES = [
  'ljspeech_LJ001-0024.flac',
  'ljspeech_LJ001-0027.flac',
  'ljspeech_LJ001-0031.flac',
  'amateur_LJ001-0066.flac',
  'amateur_LJ001-0092.flac',
  'amateur_LJ003-0038.flac',
];
const PROMPT = 'Early printers: Sweynheim and Pannartz at Subiaco, Peter Schoeffer of Maintz, Zeiner, Caslon; the Ludgate compters.';
const NAMES = ['sweynheim', 'pannartz', 'subiaco', 'schoeffer', 'maintz', "zeiner's", "caslon's", 'ludgate', 'compters'];

const references = new Map(
  readFileSync(path.join(audioDir, 'asr/refs.tsv'), 'utf8')
    .split('\n')
    .slice(1)
    .map((line) => line.split('\t'))
    .map(([file, , text]) => [file!, text ?? ''] as [string, string]),
);

describe.skipIf(!pocketSphinxAvailable().ok || !findOnPath('espeak-ng', process.env))('prompt vocabulary on real recordings', () => {
  const recognizer = createPocketSphinxRecognizer({ workers: 2 });
  afterAll(() => recognizer.close());

  it('recognises names the dictionary lacks when the prompt names them', async () => {
    const tools = resolveMediaTools();
    const run = async (prompt?: string) => {
      const results = [];
      for (const file of FILES) {
        const pcm = await decodeAudioToArray(path.join(audioDir, 'asr', file), tools);
        const text = (await recognizer.recognize(pcm, { prompt })).map((s) => s.text).join(' ');
        const ref = references.get(file)!;
        const said = normalizeWords(ref).filter((w) => NAMES.includes(w));
        const heard = normalizeWords(text);
        results.push({ wer: wordErrorRate(ref, text), names: said.length, found: said.filter((w) => heard.includes(w)).length });
      }
      return { wer: sumWer(results.map((r) => r.wer)), names: results.reduce((n, r) => n + r.names, 0), found: results.reduce((n, r) => n + r.found, 0) };
    };
    const without = await run();
    const withPrompt = await run(PROMPT);
    console.log(`names found ${without.found}/${without.names} → ${withPrompt.found}/${withPrompt.names}; WER ${(without.wer.wer * 100).toFixed(1)}% → ${(withPrompt.wer.wer * 100).toFixed(1)}%`);
    // None of these words is in the dictionary, so without the prompt none can be written.
    expect(without.found).toBe(0);
    expect(withPrompt.found).toBeGreaterThanOrEqual(3);
    expect(withPrompt.wer.wer).toBeLessThan(without.wer.wer);
  }, 240_000);

  it('decodes as without a prompt when its words are all known, or when espeak-ng is missing', async () => {
    const pcm = await decodeAudioToArray(path.join(audioDir, 'asr', 'pocketsphinx_misc_goforward.flac'), resolveMediaTools());
    const plain = await recognizer.recognize(pcm);
    expect(await recognizer.recognize(pcm, { prompt: 'Go forward ten meters.' })).toEqual(plain);
    const noEspeak = createPocketSphinxRecognizer({ workers: 1, env: { ...process.env, TAKELINE_ESPEAK_NG: '/nonexistent/espeak-ng' } });
    try {
      expect(await noEspeak.recognize(pcm, { prompt: 'Okonkwo and Takeline' })).toEqual(plain);
    } finally {
      await noEspeak.close();
    }
  }, 60_000);
});
