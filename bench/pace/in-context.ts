/**
 * Pace in context: one sentence of a reader played faster or slower (pitch kept, ffmpeg atempo) among seven of
 * their untouched sentences, transcribed and analysed as the service does
 * (src/service/speech/perception/in-context.testutil.ts; each sentence version transcribed once and cached),
 * and read by each way of computing pace_vs_speaker (context-score.ts). Readers with enough sentences in a half:
 * the amateur (desk microphone) and LJSpeech. A reading is seven of the reader's sentences from one half, the
 * changed one from the same half in the middle.
 *
 *   nice -n 10 node --import tsx bench/pace/in-context.ts [--halves tune,test] [--tempos 1.3,0.8] [--targets N] [--cache FILE] [--readings FILE] [--cached-only]
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { analyseReading } from '../../src/service/speech/perception/in-context.testutil';
import { flagValue } from '../lib/args';
import { readAsrSet } from '../lib/asr-set';
import type { Half } from '../lib/halves';
import { speakerOf } from '../lib/readers';
import { summariseContext, type Reading } from './context-score';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const sharedDir = process.env.TAKELINE_SHARED_DIR || path.resolve(repoRoot, '../shared');
const halvesAsked = (flagValue('--halves') ?? 'tune,test').split(',') as Half[];
const tempos = (flagValue('--tempos') ?? '1.3,0.8').split(',').map(Number);
const targetsPerReader = Number(flagValue('--targets') ?? 8);
const cacheFile = flagValue('--cache') ?? path.join(os.tmpdir(), 'takeline-pace-sentences.json');
/** Readings already analysed (their line counts), so a report can be printed again without analysing. */
const readingsFile = flagValue('--readings') ?? path.join(os.tmpdir(), 'takeline-pace-readings.json');
const READERS = ['amateur', 'ljspeech'];
const CONTEXT = 7;
/** Report the readings already analysed, analysing none. */
const cachedOnly = process.argv.includes('--cached-only');

const readings: Record<string, Reading> = existsSync(readingsFile) ? JSON.parse(readFileSync(readingsFile, 'utf8')) : {};
const set = readAsrSet(path.join(sharedDir, 'audio/asr'));
const started = Date.now();
const tmp = mkdtempSync(path.join(os.tmpdir(), 'takeline-pace-context-'));
try {
  // Each reader and half has one context: seven sentences spread evenly over their sentences in name order;
  // the others are targets, taken round by round (one of each reader, half and tempo), so any prefix of the run
  // covers them all and each reading costs one new transcription once the context is cached.
  for (let k = 0; k < targetsPerReader; k++) {
    for (const half of halvesAsked) {
      for (const reader of READERS) {
        const files = set.filter((f) => f.half === half && speakerOf(f.file) === reader).map((f) => f.file.replace(/\.flac$/, '')).sort();
        if (files.length < CONTEXT + 1) continue;
        const context = Array.from({ length: CONTEXT }, (_, i) => files[Math.floor((i * files.length) / CONTEXT)]!);
        const candidates = files.filter((f) => !context.includes(f));
        // Targets spread over the reader's other sentences.
        const target = candidates[Math.floor((k * candidates.length) / targetsPerReader)];
        if (!target || k >= candidates.length) continue;
        for (const tempo of tempos) {
          const key = `${target}@${tempo}`;
          if (readings[key] || cachedOnly) continue;
          const sentences = [...context.slice(0, 3).map((name) => ({ name, tempo: 1 })), { name: target, tempo }, ...context.slice(3).map((name) => ({ name, tempo: 1 }))];
          const lines = await analyseReading(tmp, sentences, cacheFile);
          readings[key] = {
            reader,
            half,
            target,
            tempo,
            lines: lines.map((l) => ({
              speaker: l.measure.speaker,
              syllables: l.measure.syllables,
              nuclei: l.measure.nuclei,
              articulation_seconds: l.measure.articulation_seconds,
              sentence: l.sentence,
              tempo: l.tempo,
            })),
          };
          writeFileSync(readingsFile, JSON.stringify(readings));
          process.stderr.write(`${Object.keys(readings).length} readings, ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
        }
      }
    }
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
const targets = (half: string) => new Set(Object.values(readings).filter((r) => r.half === half).map((r) => r.target)).size;
console.log(`\n## Pace in context (${halvesAsked.map((h) => `${h} half: ${targets(h)} target sentences`).join(', ')})\n\n${summariseContext(Object.values(readings), halvesAsked)}`);
