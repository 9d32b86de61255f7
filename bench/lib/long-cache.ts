/**
 * What the analysis benches (bench/analysis, bench/memory) share about long inputs, cached in the OS temp
 * folder: a recording's transcript made once by the service's own pipeline (by file hash), so they measure the
 * analysis, not recognition; and a recording looped to a length (an hour, say).
 */
import { spawnSync } from 'node:child_process';
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
import type { AnalysisRequest } from '../../src/service/analysis/protocol';
import { resolvePocketSphinxModel } from '../../src/service/speech/recognition/pocketsphinx/model';

export const cacheDir = path.join(os.tmpdir(), 'takeline-bench-cache');

export async function cachedTranscript(file: string, log: (s: string) => void = () => {}, options: { fresh?: boolean } = {}): Promise<Transcript> {
  const hash = crypto.createHash('sha1').update(fs.readFileSync(file)).digest('hex').slice(0, 12);
  const cached = path.join(cacheDir, `long-${hash}.json`);
  if (!options.fresh && fs.existsSync(cached)) return JSON.parse(fs.readFileSync(cached, 'utf8')) as Transcript;
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

/** `file` looped to `seconds` as 16 kHz mono FLAC (made once). */
export function loopTo(file: string, seconds: number): string {
  const out = path.join(cacheDir, `long-loop-${seconds}.flac`);
  if (fs.existsSync(out)) return out;
  fs.mkdirSync(cacheDir, { recursive: true });
  const made = spawnSync(resolveMediaTools().ffmpeg, ['-v', 'error', '-stream_loop', '-1', '-i', file, '-t', String(seconds), '-ac', '1', '-ar', '16000', '-c:a', 'flac', '-y', out]);
  if (made.status !== 0) throw new Error(`ffmpeg: ${made.stderr}`);
  return out;
}

/** A whole analysis of `file` with `transcript`'s lines, nothing done yet (what the analysis process is handed). */
export function analysisRequest(file: string, transcript: Transcript, modelsDir: string): AnalysisRequest {
  return {
    file,
    duration: transcript.duration,
    tools: resolveMediaTools(),
    modelsDir,
    dictionary: resolvePocketSphinxModel().dict,
    lines: transcript.segments.map((s) => ({ id: s.id, speaker: s.speaker, start: s.start, end: s.end, text: s.text, words: s.words })),
    parts: {},
    doneLines: [],
  };
}
