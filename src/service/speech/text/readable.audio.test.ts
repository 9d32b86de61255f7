import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { audioDir } from '../../../../test/helpers/paths';
import { resolveMediaTools } from '../../media/tools';
import { transcribeFile } from '../pipeline/transcribe';
import { createPocketSphinxRecognizer, pocketSphinxAvailable } from '../recognition/pocketsphinx-recognizer';
import { wordErrorRate } from '../scoring/wer';
import { createSileroVad } from '../vad/silero';

/**
 * Real recordings of two read sentences each (amateur desk-mic readings of LJSpeech prompts): the
 * pipeline's text must start each sentence where the reader did. These four files were looked at while
 * the rule's thresholds were set (sentences.ts), so this checks the wiring on real audio, not accuracy.
 */
const FILES: Record<string, [string, string]> = {
  'amateur_LJ003-0014.flac': ['Quarreling among the debtors was not unfrequent.', 'Blows were struck, and fights often ensued.'],
  'amateur_LJ003-0026.flac': [
    'The auditors were paid a shilling each for their services each time the poor-box was opened.',
    'The steward was also remunerated for his trouble.',
  ],
  'amateur_LJ003-0072.flac': [
    'that some other and less mixed prison should be used for the confinement of persons convicted of libels.',
    'But this suggestion was ignored.',
  ],
  'amateur_LJ003-0082.flac': [
    'The middle yard, as far as its limits would permit, was appropriated to felons and transports.',
    'The wards here were generally very crowded.',
  ],
};

describe.skipIf(!pocketSphinxAvailable().ok)('sentences in a real transcript', () => {
  const recognizer = createPocketSphinxRecognizer({ workers: 2 });
  const vad = createSileroVad();
  afterAll(async () => {
    await recognizer.close();
    await vad.close();
  });

  it.each(Object.entries(FILES))('%s reads as two sentences, split where the reader split them', async (file, reference) => {
    const transcript = await transcribeFile(path.join(audioDir, 'asr', file), { tools: resolveMediaTools(), vad, recognizer });
    const sentences = transcript.text.match(/[^.]+\./g)!.map((s) => s.trim());
    expect(sentences).toHaveLength(2);
    for (const s of sentences) expect(s).toMatch(/^[A-Z]/);
    // Each written sentence is closer to its own reference sentence than to the other one.
    for (const [i, s] of sentences.entries()) {
      expect(wordErrorRate(reference[i]!, s).wer).toBeLessThan(wordErrorRate(reference[1 - i]!, s).wer);
    }
    // Words carry the written form; WER over the written text equals WER over the bare words.
    const bare = transcript.segments.flatMap((seg) => seg.words.map((w) => w.word.toLowerCase().replace(/[.,]$/, ''))).join(' ');
    expect(wordErrorRate(reference.join(' '), transcript.text)).toEqual(wordErrorRate(reference.join(' '), bare));
  }, 60_000);
});
