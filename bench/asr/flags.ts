/**
 * Decoder-flag experiments: WER and decoder CPU for one set of pocketsphinx_batch flags, on VAD chunks
 * computed once and cached (the pipeline's VAD and merging), decoded by two processes.
 * Faster than run.ts for tuning and the only place CPU time is measured per flag set.
 *
 *   node --import tsx bench/asr/flags.ts [--half tune|test] [--every 3] [--pad 0.1] [--merge-gap 0.6] [--bare] [--no-variants] [-- -beam 1e-60 …]
 *
 * Flags after `--` replace the shipped RECOGNITION_ARGS of the same name; --bare starts from the program's
 * defaults (plus `-remove_silence no`) instead. The dictionary is the recognizer's (the model's, plus the
 * function words' British forms and devoiced variants); --no-variants decodes with the model's own.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { RECOGNITION_ARGS } from '../../src/service/speech/recognition/pocketsphinx/decoder-args';
import { resolvePocketSphinxModel } from '../../src/service/speech/recognition/pocketsphinx/model';
import { withPronunciationVariants } from '../../src/service/speech/recognition/pocketsphinx/pronunciation-variants';
import { sumWer, wordErrorRate } from '../../src/service/speech/scoring/wer';
import { balancedShares, chunkFolder, decodeBatch, prepareAsrChunks } from '../lib/asr-chunks';
import { decoderFlagPairs } from '../lib/decoder-flags';
import { type Half } from '../lib/halves';
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
// The recognizer's dictionary, with the function words' variants; --no-variants: the model's own.
const variants = !own.includes('--no-variants');

async function main(): Promise<void> {
  const chunkDir = chunkFolder(os.tmpdir(), { padSeconds: pad, mergeGapSeconds: mergeGap });
  const all = await prepareAsrChunks(asrDir, chunkDir, { padSeconds: pad, mergeGapSeconds: mergeGap });
  const items = all.filter((it) => !onlyHalf || it.half === onlyHalf).filter((_, i) => i % every === 0);
  const base: Record<string, string> = {
    ...(own.includes('--bare') ? { '-remove_silence': 'no' } : RECOGNITION_ARGS),
    ...decoderFlagPairs(flags),
  };
  const args = Object.entries(base).flat();

  const shares = balancedShares(chunkDir, items.flatMap((it) => it.ids));
  const workDir = mkdtempSync(path.join(os.tmpdir(), 'takeline-asr-flags-'));
  try {
    // Written into workDir, removed with it.
    const dict = variants ? withPronunciationVariants(resolvePocketSphinxModel(), workDir).model.dict : undefined;
    const t0 = Date.now();
    const cpu0 = childrenCpuSeconds();
    const passes = await Promise.all(shares.map((ids) => decodeBatch(chunkDir, workDir, ids, args, dict)));
    const cpu = childrenCpuSeconds() - cpu0;
    const wall = (Date.now() - t0) / 1000;
    const hyp = new Map(passes.flatMap((p) => [...p.hyps].map(([id, h]) => [id, h.text] as const)));
    const results = items.map((it) =>
      wordErrorRate(it.reference, it.ids.map((id) => hyp.get(id) ?? '').join(' ')),
    );
    const audio = items.reduce((a, it) => a + it.seconds, 0);
    // The decoder's own work counts (per utterance in its log) do not move with the machine's load, unlike
    // CPU seconds on a shared machine: Gaussian scoring is senones evaluated, the search is HMM channels.
    const work = { frames: 0, senones: 0, channels: 0 };
    for (const { log } of passes) {
      for (const m of log.matchAll(/(\d+) senones evaluated \((\d+)\/fr\)/g)) {
        work.senones += Number(m[1]);
        work.frames += Number(m[1]) / Math.max(1, Number(m[2]));
      }
      for (const m of log.matchAll(/(\d+) channels searched/g)) work.channels += Number(m[1]);
    }
    const all = sumWer(results);
    const perSet = [...new Set(items.map((it) => it.source))].map((set) => {
      const w = sumWer(results.filter((_, i) => items[i]!.source === set));
      return `${set} ${(w.wer * 100).toFixed(1)}%`;
    });
    console.log(
      `${items.length} files, ${all.referenceWords} words; flags ${args.join(' ')}; ${variants ? 'with' : 'without'} pronunciation variants`,
    );
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
