/**
 * The transcript of long/ made once by the service's own pipeline and cached in the OS temp folder by file
 * hash (the same cache file bench/analysis uses), so the analysis benches measure the analysis, not recognition.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { resolveMediaTools } from '../../src/service/media/tools';
import { transcribeFile } from '../../src/service/speech/pipeline/transcribe';
import { createPocketSphinxRecognizer } from '../../src/service/speech/recognition/pocketsphinx-recognizer';
import { createServiceDiarizer } from '../../src/service/transcription/local-engine';
import { createSileroVad } from '../../src/service/speech/vad/silero';
import type { Transcript } from '../../src/service/speech/types';

export const cacheDir = path.join(os.tmpdir(), 'takeline-bench-cache');

export async function cachedTranscript(file: string, log: (s: string) => void = () => {}): Promise<Transcript> {
  const hash = crypto.createHash('sha1').update(fs.readFileSync(file)).digest('hex').slice(0, 12);
  const cached = path.join(cacheDir, `long-${hash}.json`);
  if (fs.existsSync(cached)) return JSON.parse(fs.readFileSync(cached, 'utf8')) as Transcript;
  log(`  transcribing ${path.basename(file)} once with the service pipeline (cached in ${cached})…`);
  const vad = createSileroVad();
  const recognizer = createPocketSphinxRecognizer();
  const service = createServiceDiarizer();
  try {
    const transcript = await transcribeFile(file, { tools: resolveMediaTools(), vad, recognizer, diarizer: service.diarizer }, {});
    fs.mkdirSync(cacheDir, { recursive: true });
    fs.writeFileSync(cached, JSON.stringify({ ...transcript, engine: recognizer.id }));
    return { ...transcript, engine: recognizer.id };
  } finally {
    await recognizer.close();
    await vad.close();
    await service.close();
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename ?? '')) {
  const file = process.argv[2]!;
  const t = await cachedTranscript(file, (s) => process.stdout.write(`${s}\n`));
  process.stdout.write(`${t.segments.length} lines, ${t.duration} s\n`);
}
