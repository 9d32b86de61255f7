/**
 * Decoder-flag experiments: WER and decoder CPU for one set of pocketsphinx_batch flags, on VAD chunks
 * computed once and cached (the pipeline's VAD and merging), decoded by two processes.
 * Faster than run.ts for tuning and the only place CPU time is measured per flag set.
 *
 *   node --import tsx bench/asr/flags.ts [--half tune|test] [--every 3] [--pad 0.1] [--merge-gap 0.6] [--bare] [-- -beam 1e-60 …]
 *
 * Flags after `--` replace the shipped RECOGNITION_ARGS of the same name; --bare starts from the program's
 * defaults (plus `-remove_silence no`) instead.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { decodeAudioToArray } from '../../src/service/media/decode';
import { ChunkMerger } from '../../src/service/speech/pipeline/chunks';
import { resolveMediaTools } from '../../src/service/media/tools';
import { RECOGNITION_ARGS } from '../../src/service/speech/recognition/pocketsphinx/decoder-args';
import { resolvePocketSphinxModel } from '../../src/service/speech/recognition/pocketsphinx/model';
import { float32ToInt16Le } from '../../src/service/speech/recognition/pocketsphinx/pcm';
import { sumWer, wordErrorRate } from '../../src/service/speech/scoring/wer';
import { SAMPLE_RATE } from '../../src/service/speech/types';
import { createSileroVad } from '../../src/service/speech/vad/silero';
import { halves as halfOf, type Half } from '../lib/halves';
import { childrenCpuSeconds } from '../lib/proc-cpu';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const asrDir = path.join(process.env.TAKELINE_SHARED_DIR || path.resolve(repoRoot, '../shared'), 'audio/asr');
const dashDash = process.argv.indexOf('--');
const own = dashDash >= 0 ? process.argv.slice(2, dashDash) : process.argv.slice(2);
const flags = dashDash >= 0 ? process.argv.slice(dashDash + 1) : [];
const opt = (name: string, fallback: number) => {
  const i = own.indexOf(name);
  return i >= 0 ? Number(own[i + 1]) : fallback;
};
const every = opt('--every', 1);
const pad = opt('--pad', 0.1);
const mergeGap = opt('--merge-gap', 0.6);
// Tuning runs keep the tuning half (bench/lib/halves.ts); the test half only reports.
const onlyHalf = own.includes('--half') ? (own[own.indexOf('--half') + 1] as Half) : undefined;

interface Item {
  file: string;
  set: string;
  reference: string;
  ids: string[];
  seconds: number;
}

/** Chunks as raw 16-bit files plus items.json, cached per VAD setting under the OS temp folder. */
async function prepareChunks(dir: string): Promise<Item[]> {
  const index = path.join(dir, 'items.json');
  if (existsSync(index)) return JSON.parse(readFileSync(index, 'utf8')) as Item[];
  mkdirSync(dir, { recursive: true });
  const lines = readFileSync(path.join(asrDir, 'refs.tsv'), 'utf8').split('\n').slice(1).filter(Boolean);
  const tools = resolveMediaTools();
  const vad = createSileroVad({ speechPadSeconds: pad });
  const items: Item[] = [];
  for (const [i, line] of lines.entries()) {
    const [file, , reference] = line.split('\t') as [string, string, string];
    const pcm = await decodeAudioToArray(path.join(asrDir, file), tools);
    // Merged as the pipeline merges them (its 20 s cap included).
    const merger = new ChunkMerger({ mergeGapSeconds: mergeGap });
    const merged = (await vad.detect(pcm)).flatMap((s) => merger.push(s)).concat(merger.finish());
    const ids = merged.map((s, k) => {
      const id = `c${i}_${k}`;
      const a = Math.max(0, Math.round(s.start * SAMPLE_RATE));
      const b = Math.min(pcm.length, Math.round(s.end * SAMPLE_RATE));
      writeFileSync(path.join(dir, `${id}.raw`), float32ToInt16Le(pcm.subarray(a, b)));
      return id;
    });
    items.push({ file, set: file.split('_')[0]!, reference, ids, seconds: pcm.length / SAMPLE_RATE });
  }
  await vad.close();
  writeFileSync(index, JSON.stringify(items));
  return items;
}

/** Decodes `ids` in one pocketsphinx_batch process. */
function decodeAll(chunkDir: string, work: string, n: number, ids: string[], args: string[]): Promise<void> {
  const model = resolvePocketSphinxModel();
  writeFileSync(path.join(work, `ctl${n}`), ids.join('\n') + '\n');
  const argv = [
    '-hmm',
    model.hmm,
    '-lm',
    model.lm,
    '-dict',
    model.dict,
    '-ctl',
    path.join(work, `ctl${n}`),
    '-adcin',
    'yes',
    '-cepdir',
    chunkDir,
    '-cepext',
    '.raw',
    '-hyp',
    path.join(work, `hyp${n}`),
    '-logfn',
    path.join(work, `log${n}`),
    ...args,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(model.batch, argv, { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) reject(new Error(`pocketsphinx_batch exit ${code}: ${err.slice(-400)}`));
      else resolve();
    });
  });
}

async function main(): Promise<void> {
  const chunkDir = path.join(os.tmpdir(), `takeline-asr-chunks-pad${pad}-gap${mergeGap}`);
  const all = await prepareChunks(chunkDir);
  const half = halfOf(all.map((it) => it.file));
  const items = all.filter((it) => !onlyHalf || half.get(it.file) === onlyHalf).filter((_, i) => i % every === 0);
  const base: Record<string, string> = own.includes('--bare')
    ? { '-remove_silence': 'no' }
    : { ...RECOGNITION_ARGS };
  for (let i = 0; i + 1 < flags.length; i += 2) base[flags[i]!] = flags[i + 1]!;
  const args = Object.entries(base).flat();

  // Two processes with equal shares of audio, longest chunks first.
  const sizes = new Map(
    items.flatMap((it) => it.ids).map((id) => [id, statSync(path.join(chunkDir, `${id}.raw`)).size]),
  );
  const halves: string[][] = [[], []];
  const load = [0, 0];
  for (const id of [...sizes.keys()].sort((a, b) => sizes.get(b)! - sizes.get(a)!)) {
    const h = load[0]! <= load[1]! ? 0 : 1;
    halves[h]!.push(id);
    load[h]! += sizes.get(id)!;
  }
  const workDir = mkdtempSync(path.join(os.tmpdir(), 'takeline-asr-flags-'));
  try {
    const t0 = Date.now();
    const cpu0 = childrenCpuSeconds();
    await Promise.all(halves.map((ids, n) => decodeAll(chunkDir, workDir, n, ids, args)));
    const cpu = childrenCpuSeconds() - cpu0;
    const wall = (Date.now() - t0) / 1000;
    const hyp = new Map<string, string>();
    for (const n of [0, 1]) {
      for (const line of readFileSync(path.join(workDir, `hyp${n}`), 'utf8').split('\n')) {
        const m = /^(.*)\s\((c\d+_\d+)(?:\s[-\d]+)?\)$/.exec(line.trim());
        if (m) hyp.set(m[2]!, m[1]!.replace(/\(\d+\)/g, ''));
      }
    }
    const results = items.map((it) =>
      wordErrorRate(it.reference, it.ids.map((id) => hyp.get(id) ?? '').join(' ')),
    );
    const audio = items.reduce((a, it) => a + it.seconds, 0);
    // The decoder's own work counts (per utterance in its log) do not move with the machine's load, unlike
    // CPU seconds on a shared machine: Gaussian scoring is senones evaluated, the search is HMM channels.
    const work = { frames: 0, senones: 0, channels: 0 };
    for (const n of [0, 1]) {
      const log = readFileSync(path.join(workDir, `log${n}`), 'utf8');
      for (const m of log.matchAll(/(\d+) senones evaluated \((\d+)\/fr\)/g)) {
        work.senones += Number(m[1]);
        work.frames += Number(m[1]) / Math.max(1, Number(m[2]));
      }
      for (const m of log.matchAll(/(\d+) channels searched/g)) work.channels += Number(m[1]);
    }
    const all = sumWer(results);
    const perSet = [...new Set(items.map((it) => it.set))].map((set) => {
      const w = sumWer(results.filter((_, i) => items[i]!.set === set));
      return `${set} ${(w.wer * 100).toFixed(1)}%`;
    });
    console.log(`${items.length} files, ${all.referenceWords} words; flags ${args.join(' ')}`);
    console.log(
      `WER ${(all.wer * 100).toFixed(2)}% (S/D/I ${all.substitutions}/${all.deletions}/${all.insertions}); ` +
        `decoder CPU ${cpu.toFixed(1)} s = ${(cpu / audio).toFixed(3)} s per audio s; wall ${wall.toFixed(1)} s; ` +
        `per frame: ${(work.senones / work.frames).toFixed(0)} senones, ${(work.channels / work.frames).toFixed(0)} HMM channels`,
    );
    console.log(perSet.join(' | '));
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
