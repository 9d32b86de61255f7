/**
 * The ASR set cut into the pipeline's VAD chunks once and cached, and decoded by pocketsphinx_batch over
 * those chunks: what the decoder-flag (bench/asr/flags.ts) and adaptation (bench/adaptation) experiments
 * share, so each run decodes exactly the chunks the service would.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { decodeAudioToArray } from '../../src/service/media/decode';
import { levelledRecording } from '../../src/service/speech/pipeline/levelled-blocks';
import { resolveMediaTools } from '../../src/service/media/tools';
import { ChunkMerger } from '../../src/service/speech/pipeline/chunks';
import { resolvePocketSphinxModel } from '../../src/service/speech/recognition/pocketsphinx/model';
import { float32ToInt16Le } from '../../src/service/speech/recognition/pocketsphinx/pcm';
import { SAMPLE_RATE } from '../../src/service/speech/types';
import { createSileroVad } from '../../src/service/speech/vad/silero';
import { readAsrSet, type AsrFile } from './asr-set';
import { wavFile } from './wav';

export interface ChunkedFile extends AsrFile {
  /** Chunk ids, in time order: `${id}.raw` (16-bit PCM) in the chunk folder. */
  ids: string[];
  /** Decoded length. */
  seconds: number;
}

export interface ChunkOptions {
  /** Silero's padding around speech (its default when absent). */
  padSeconds?: number;
  /** ChunkMerger's gap (its default when absent). */
  mergeGapSeconds?: number;
  /** Also write each whole file as `${file}.wav` (for the untuned program). */
  wavs?: boolean;
}

/** A cache folder name for these options under `root`. */
export function chunkFolder(root: string, options: ChunkOptions = {}): string {
  return path.join(root, `takeline-asr-chunks-v3-pad${options.padSeconds ?? 'd'}-gap${options.mergeGapSeconds ?? 'd'}${options.wavs ? '-wav' : ''}`);
}

/** Every file of the set with its chunks written to `dir`, or read back from `dir/items.json`. */
export async function prepareAsrChunks(asrDir: string, dir: string, options: ChunkOptions = {}): Promise<ChunkedFile[]> {
  const index = path.join(dir, 'items.json');
  if (existsSync(index)) return JSON.parse(readFileSync(index, 'utf8')) as ChunkedFile[];
  mkdirSync(dir, { recursive: true });
  const tools = resolveMediaTools();
  const vad = createSileroVad(options.padSeconds === undefined ? {} : { speechPadSeconds: options.padSeconds });
  const items: ChunkedFile[] = [];
  try {
    for (const [i, f] of readAsrSet(asrDir).entries()) {
      // Levelled as the pipeline levels it, so the chunks are what its VAD and decoders get.
      const pcm = await levelledRecording(await decodeAudioToArray(path.join(asrDir, f.file), tools));
      // Merged as the pipeline merges them (its 20 s cap included).
      const merger = new ChunkMerger(options.mergeGapSeconds === undefined ? {} : { mergeGapSeconds: options.mergeGapSeconds });
      const spans = (await vad.detect(pcm)).flatMap((s) => merger.push(s)).concat(merger.finish());
      const ids = spans.map((s, k) => {
        const id = `c${i}_${k}`;
        const a = Math.max(0, Math.round(s.start * SAMPLE_RATE));
        const b = Math.min(pcm.length, Math.round(s.end * SAMPLE_RATE));
        writeFileSync(path.join(dir, `${id}.raw`), float32ToInt16Le(pcm.subarray(a, b)));
        return id;
      });
      if (options.wavs) writeFileSync(path.join(dir, `${f.file}.wav`), wavFile(float32ToInt16Le(pcm), SAMPLE_RATE, 'int16'));
      items.push({ ...f, ids, seconds: pcm.length / SAMPLE_RATE });
    }
  } finally {
    await vad.close();
  }
  writeFileSync(index, JSON.stringify(items));
  return items;
}

/** `ids` split into `n` lists of about equal audio, longest chunks first (the service's decoder pool). */
export function balancedShares(chunkDir: string, ids: readonly string[], n = 2): string[][] {
  const size = new Map(ids.map((id) => [id, statSync(path.join(chunkDir, `${id}.raw`)).size]));
  const shares: string[][] = Array.from({ length: n }, () => []);
  const load = new Array<number>(n).fill(0);
  for (const id of [...ids].sort((a, b) => size.get(b)! - size.get(a)!)) {
    const h = load.indexOf(Math.min(...load));
    shares[h]!.push(id);
    load[h]! += size.get(id)!;
  }
  return shares.filter((s) => s.length);
}

/** A chunk's text (pronunciation variants stripped) and path score. */
export interface BatchHyp {
  text: string;
  score: number;
}

export interface BatchResult {
  hyps: Map<string, BatchHyp>;
  /** The decoder's log (its per-utterance work counts). */
  log: string;
}

/**
 * Decodes `ids` from `chunkDir` in one pocketsphinx_batch process with `args`; its files go under `work`.
 * `dict` replaces the model's dictionary.
 */
export function decodeBatch(
  chunkDir: string,
  work: string,
  ids: readonly string[],
  args: readonly string[],
  dict?: string,
): Promise<BatchResult> {
  const model = resolvePocketSphinxModel();
  const tag = mkdtempSync(path.join(work, 'pass-'));
  writeFileSync(path.join(tag, 'ctl'), ids.join('\n') + '\n');
  const argv = [
    ...['-hmm', model.hmm, '-lm', model.lm, '-dict', dict ?? model.dict],
    ...['-ctl', path.join(tag, 'ctl'), '-adcin', 'yes', '-cepdir', chunkDir, '-cepext', '.raw'],
    ...['-hyp', path.join(tag, 'hyp'), '-logfn', path.join(tag, 'log')],
    ...args,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(model.batch, argv, { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`pocketsphinx_batch exit ${code} (${tag}/log): ${err.slice(-400)}`));
      const hyps = new Map<string, BatchHyp>();
      for (const line of readFileSync(path.join(tag, 'hyp'), 'utf8').split('\n')) {
        const m = /^(.*?)\s*\((c\d+_\d+)(?:\s+(-?\d+))?\)$/.exec(line.trim());
        if (m) hyps.set(m[2]!, { text: m[1]!.replace(/\(\d+\)/g, ''), score: Number(m[3] ?? 0) });
      }
      const log = readFileSync(path.join(tag, 'log'), 'utf8');
      rmSync(tag, { recursive: true, force: true });
      resolve({ hyps, log });
    });
  });
}
