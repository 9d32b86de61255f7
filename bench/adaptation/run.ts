/**
 * Unsupervised acoustic adaptation as a second PocketSphinx pass (README here): WER per source and half
 * and the extra CPU, side by side with the untuned `pocketsphinx_continuous`, in one run.
 *
 *   nice -n 10 node --import tsx bench/adaptation/run.ts [--every 3] [--no-baseline] [--grid 0.92,1,1.08]
 *       [--methods rec,spk,online,vtln] [--args "-pl_weight 3"]
 *
 * Files: ../shared/audio/asr, split into tuning and test halves by bench/lib/halves.ts; --every N keeps every
 * Nth file of each source and half. Chunks: the pipeline's Silero VAD and ChunkMerger (as bench/asr/flags.ts),
 * cached under the OS temp folder. First pass: the shipped RECOGNITION_ARGS. Second passes:
 *   mllr/rec  one MLLR transform per recording from its own first-pass words (adaptation.ts), then -mllr
 *   mllr/spk  one per speaker: all recordings of a source within a half pooled (each source here is one
 *             or a few read-speech speakers; a diarized recording's speaker is the same case)
 *   vtln/rec, vtln/spk  -warp_params from the grid, per recording or speaker, by best pooled path score
 * The method to keep is chosen on the tuning half only (chooseAdaptation); the test half only reports.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  chooseAdaptation,
  createMllrAdaptation,
  pickWarp,
  resolveSphinxtrain,
  warpArgs,
  type AdaptationMethod,
} from '../../src/service/speech/recognition/pocketsphinx/adaptation';
import { RECOGNITION_ARGS } from '../../src/service/speech/recognition/pocketsphinx/decoder-args';
import { resolvePocketSphinxModel } from '../../src/service/speech/recognition/pocketsphinx/model';
import { errorCount, sumWer, wordErrorRate, type WerResult } from '../../src/service/speech/scoring/wer';
import { balancedShares, chunkFolder, decodeBatch, prepareAsrChunks, type BatchHyp, type ChunkedFile } from '../lib/asr-chunks';
import { mapLimit } from '../lib/map-limit';
import { childrenCpuSeconds } from '../lib/proc-cpu';
import { parseDecoderFlags } from '../lib/decoder-flags';
import { flagValue as flag } from '../lib/args';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const asrDir = path.join(process.env.TAKELINE_SHARED_DIR || path.resolve(repoRoot, '../shared'), 'audio/asr');
const every = Number(flag('--every') ?? 3);
const grid = (flag('--grid') ?? '0.92,1,1.08').split(',').map(Number);
const runBaseline = !process.argv.includes('--no-baseline');
const methods = (flag('--methods') ?? 'rec,spk,online,vtln').split(',');
// Decoder flags over the shipped ones for every pass, e.g. --args "-pl_weight 3" (how adaptation fares under other search settings).
const firstPassArgs: Record<string, string> = { ...RECOGNITION_ARGS, ...parseDecoderFlags(flag('--args')) };

type Item = ChunkedFile;
type Hyp = BatchHyp;

/** One pocketsphinx_batch pass with `args` over the shipped flags (and --args). */
async function decode(chunkDir: string, work: string, ids: string[], args: string[]): Promise<Map<string, Hyp>> {
  return (await decodeBatch(chunkDir, work, ids, [...Object.entries(firstPassArgs).flat(), ...args])).hyps;
}

/** Two processes with equal shares of audio (the service's two workers), same args for all. */
async function decodeShared(chunkDir: string, work: string, items: Item[], args: string[]): Promise<Map<string, Hyp>> {
  const maps = await Promise.all(balancedShares(chunkDir, items.flatMap((it) => it.ids)).map((ids) => decode(chunkDir, work, ids, args)));
  return new Map(maps.flatMap((m) => [...m]));
}

function runContinuous(wav: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('pocketsphinx_continuous', ['-infile', wav, '-logfn', '/dev/null'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve(out.split('\n').join(' ')) : reject(new Error(`exit ${code}`)),
    );
  });
}

async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; wall: number; cpu: number }> {
  const t0 = Date.now();
  const c0 = childrenCpuSeconds();
  const value = await fn();
  return { value, wall: (Date.now() - t0) / 1000, cpu: childrenCpuSeconds() - c0 };
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

async function main(): Promise<void> {
  const chunkDir = chunkFolder(os.tmpdir(), { wavs: true });
  const items = (await prepareAsrChunks(asrDir, chunkDir, { wavs: true })).filter(
    (it, i, all) =>
      all.filter((o, j) => j < i && o.source === it.source && o.half === it.half).length % every === 0,
  );
  const audio = items.reduce((a, it) => a + it.seconds, 0);
  const work = mkdtempSync(path.join(os.tmpdir(), 'takeline-adaptation-'));
  const sphinxtrain = resolveSphinxtrain();
  console.log(
    `${items.length} files (every ${every} of each source and half), ${(audio / 60).toFixed(1)} min; grid ${grid.join(',')}`,
  );
  const systems = new Map<string, Map<string, string>>(); // system → file → hypothesis
  const costs: string[][] = [['step', 'wall s', 'CPU s', 'CPU s per audio s']];
  const cost = (name: string, t: { wall: number; cpu: number }) =>
    costs.push([name, t.wall.toFixed(1), t.cpu.toFixed(1), (t.cpu / audio).toFixed(3)]);
  const joinHyps = (hyps: Map<string, Hyp>, it: Item) =>
    it.ids.map((id) => hyps.get(id)?.text ?? '').join(' ');
  let baselineWall = NaN;
  let onlineReplacedAudio = 0;
  let baselineCpu = NaN;
  try {
    if (runBaseline) {
      const t = await timed(() =>
        mapLimit(items, 2, (it) => runContinuous(path.join(chunkDir, `${it.file}.wav`))),
      );
      systems.set('continuous', new Map(items.map((it, i) => [it.file, t.value[i]!])));
      cost('continuous (untuned CLI, whole files, 2 at a time)', t);
      baselineWall = t.wall;
      baselineCpu = t.cpu / audio;
    }
    const first = await timed(() => decodeShared(chunkDir, work, items, []));
    cost('first pass (shipped flags, 2 processes)', first);
    systems.set('first pass', new Map(items.map((it) => [it.file, joinHyps(first.value, it)])));

    const speakers = new Map<string, Item[]>();
    for (const it of items) {
      const key = `${it.source} ${it.half}`;
      if (!speakers.has(key)) speakers.set(key, []);
      speakers.get(key)!.push(it);
    }
    const recordings = new Map(items.map((it) => [it.file, [it]]));

    if (sphinxtrain) {
      const mllr = createMllrAdaptation(resolvePocketSphinxModel(), sphinxtrain, work);
      const chunksOf = (group: Item[]) =>
        group.flatMap((it) =>
          it.ids.map((id) => ({
            id,
            pcm: readFileSync(path.join(chunkDir, `${id}.raw`)),
            hypothesis: first.value.get(id)?.text ?? '',
          })),
        );
      for (const [label, groups] of [
        ['rec', recordings],
        ['spk', speakers],
      ] as const) {
        if (!methods.includes(label)) continue;
        let skipped = 0;
        const est = await timed(() =>
          mapLimit([...groups.values()], 2, (group) =>
            mllr.estimate(
              group.flatMap((it) =>
                it.ids.map((id) => ({
                  id,
                  pcm: readFileSync(path.join(chunkDir, `${id}.raw`)),
                  hypothesis: first.value.get(id)?.text ?? '',
                })),
              ),
              work,
            ),
          ),
        );
        cost(`mllr/${label}: estimate (sphinx_fe + bw + mllr_solve)`, est);
        const second = await timed(async () => {
          const hyps = await mapLimit([...groups.values()], 2, (group, g) => {
            const r = est.value[g]!;
            if (!r.args) skipped++;
            // Without a transform the first pass stands (the fallback), at no extra cost.
            if (!r.args)
              return Promise.resolve(
                new Map(group.flatMap((it) => it.ids.map((id) => [id, first.value.get(id)!] as const))),
              );
            return decode(
              chunkDir,
              work,
              group.flatMap((it) => it.ids),
              r.args,
            );
          });
          return new Map(hyps.flatMap((m) => [...m]));
        });
        cost(
          `mllr/${label}: second pass (one process per ${label === 'rec' ? 'recording' : 'speaker'})`,
          second,
        );
        console.log(
          `mllr/${label}: ${groups.size - skipped} of ${groups.size} adapted; e.g. ${est.value
            .map((r) => (r.args ? r.detail : r.skipped))
            .slice(0, 2)
            .join(' | ')}`,
        );
        systems.set(`mllr/${label}`, new Map(items.map((it) => [it.file, joinHyps(second.value, it)])));
      }
      if (methods.includes('online')) {
        // No second pass: per speaker, the transform from the first-pass words of its earlier recordings
        // (the first half by name) decodes the later ones, as a long recording would be decoded after its
        // first minutes. Earlier recordings keep the first pass, so decoding costs about one pass.
        const split = [...speakers.values()].map((group) => {
          const k = Math.ceil(group.length / 2);
          return { early: group.slice(0, k), late: group.slice(k) };
        });
        const est = await timed(() =>
          mapLimit(split, 2, ({ early, late }) =>
            late.length
              ? mllr.estimate(chunksOf(early), work)
              : Promise.resolve({ args: null, skipped: 'one recording' }),
          ),
        );
        cost('mllr/online: estimate from earlier recordings', est);
        const lateAudio = split.reduce(
          (a, { late }, g) => a + (est.value[g]!.args ? late.reduce((b, it) => b + it.seconds, 0) : 0),
          0,
        );
        const adapted = await timed(async () => {
          const maps = await mapLimit(split, 2, ({ late }, g) => {
            const r = est.value[g]!;
            return r.args
              ? decode(
                  chunkDir,
                  work,
                  late.flatMap((it) => it.ids),
                  r.args,
                )
              : Promise.resolve(new Map<string, Hyp>());
          });
          return new Map(maps.flatMap((m) => [...m]));
        });
        cost(
          `mllr/online: adapted decode of later recordings (${(lateAudio / 60).toFixed(1)} min, instead of their first pass)`,
          adapted,
        );
        onlineReplacedAudio = lateAudio;
        const merged = new Map(first.value);
        for (const [id, h] of adapted.value) merged.set(id, h);
        systems.set('mllr/online', new Map(items.map((it) => [it.file, joinHyps(merged, it)])));
      }
    } else console.log('mllr: sphinxtrain not installed (apt-get install sphinxtrain); skipped');

    const warped = new Map<number, Map<string, Hyp>>([[1, first.value]]);
    for (const alpha of grid.filter((a) => a !== 1 && methods.includes('vtln'))) {
      const t = await timed(() => decodeShared(chunkDir, work, items, warpArgs(alpha)));
      cost(`vtln: pass at warp ${alpha}`, t);
      warped.set(alpha, t.value);
    }
    for (const [label, groups] of [
      ['rec', recordings],
      ['spk', speakers],
    ] as const) {
      if (warped.size < 2) break;
      const chosen = new Map<string, number>();
      for (const group of groups.values()) {
        const scores = new Map(
          [...warped].map(([alpha, hyps]) => [
            alpha,
            group.flatMap((it) => it.ids).reduce((a, id) => a + (hyps.get(id)?.score ?? -1e9), 0),
          ]),
        );
        const alpha = pickWarp(scores);
        for (const it of group) chosen.set(it.file, alpha);
      }
      systems.set(
        `vtln/${label}`,
        new Map(items.map((it) => [it.file, joinHyps(warped.get(chosen.get(it.file)!)!, it)])),
      );
      if (label === 'spk')
        console.log(
          `vtln/spk warps: ${[...groups.keys()].map((k) => `${k} ${chosen.get(groups.get(k)![0]!.file)}`).join(', ')}`,
        );
      else {
        const counts = new Map<number, number>();
        for (const a of chosen.values()) counts.set(a, (counts.get(a) ?? 0) + 1);
        console.log(
          `vtln/rec warps chosen: ${[...counts]
            .sort((a, b) => a[0] - b[0])
            .map(([a, n]) => `${a}×${n}`)
            .join(' ')}`,
        );
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }

  // WER per source and half, pooled over words (bench/asr's scorer).
  const wer = new Map<string, WerResult[]>();
  for (const [name, hyps] of systems)
    wer.set(
      name,
      items.map((it) => wordErrorRate(it.reference, hyps.get(it.file)!)),
    );
  const names = [...systems.keys()];
  const rows: string[][] = [['source', 'half', 'files', 'words', ...names]];
  const pooled = (name: string, idx: number[]) => sumWer(idx.map((i) => wer.get(name)![i]!));
  const addRow = (source: string, half: string, idx: number[]) => {
    if (!idx.length) return;
    rows.push([
      source,
      half,
      String(idx.length),
      String(pooled(names[0]!, idx).referenceWords),
      ...names.map((n) => pct(pooled(n, idx).wer)),
    ]);
  };
  for (const half of ['tune', 'test'] as const) {
    for (const source of [...new Set(items.map((it) => it.source))].sort())
      addRow(
        source,
        half,
        items.flatMap((it, i) => (it.source === source && it.half === half ? [i] : [])),
      );
    addRow(
      'ALL',
      half,
      items.flatMap((it, i) => (it.half === half ? [i] : [])),
    );
  }
  const print = (table: string[][]) => {
    const widths = table[0]!.map((_, c) => Math.max(...table.map((r) => r[c]!.length)));
    for (const r of table)
      console.log(
        r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  '),
      );
  };
  console.log('');
  print(rows);
  console.log('');
  print(costs);

  // The decision, on the tuning half only.
  const cpuOf = (prefix: string) =>
    costs.filter((r) => r[0]!.startsWith(prefix)).reduce((a, r) => a + Number(r[2]), 0) / audio;
  const extraCpuOf = (name: string) =>
    name === 'mllr/online'
      ? cpuOf('mllr/online') - (cpuOf('first pass') * onlineReplacedAudio) / audio
      : cpuOf(name.startsWith('vtln') ? 'vtln' : name);
  const tuneIdx = items.flatMap((it, i) => (it.half === 'tune' ? [i] : []));
  const base = pooled('first pass', tuneIdx);
  const outcomes = names
    .filter((n) => n.startsWith('mllr/') || n.startsWith('vtln/'))
    .map((n) => ({
      name: n,
      method: n.split('/')[0] as AdaptationMethod,
      baselineErrors: errorCount(base),
      adaptedErrors: errorCount(pooled(n, tuneIdx)),
      referenceWords: base.referenceWords,
      extraCpu: extraCpuOf(n),
    }));
  // The speed target in CPU terms (both systems use the two cores): whole decoding ≤ 0.6 × the CLI's CPU.
  const budget = Number.isFinite(baselineCpu) ? 0.6 * baselineCpu - cpuOf('first pass') : Infinity;
  const choice = chooseAdaptation(outcomes);
  const withinSpeed = chooseAdaptation(outcomes, { maxExtraCpu: budget });
  // The variant behind a chosen method: its fewest errors among those within `maxCpu`.
  const bestOf = (method: AdaptationMethod, maxCpu: number) =>
    outcomes
      .filter((o) => o.method === method && o.extraCpu <= maxCpu)
      .sort((a, b) => a.adaptedErrors - b.adaptedErrors)[0]!.name;
  const which = choice === 'none' ? null : { name: bestOf(choice, Infinity) };
  console.log(
    `\ntuning half: first pass ${errorCount(base)} errors / ${base.referenceWords} words; ` +
      outcomes.map((o) => `${o.name} ${o.adaptedErrors} (+${o.extraCpu.toFixed(3)} CPU s/s)`).join(', '),
  );
  console.log(
    `decision (tuning half, ≥ 2 % and ≥ 3 fewer errors): ${which ? which.name : 'none — adaptation not used'}`,
  );
  // What fits if the first pass alone met the target (its own business: bench/asr): extra CPU only.
  const ifFirstFits = chooseAdaptation(outcomes, { maxExtraCpu: 0.1 * cpuOf('first pass') });
  console.log(
    `if the first pass met the target, with ≤ 10 % extra CPU: ${ifFirstFits === 'none' ? 'none' : bestOf(ifFirstFits, 0.1 * cpuOf('first pass'))}`,
  );
  console.log(
    `within the speed target (extra CPU ≤ 0.6 × CLI − first pass = ${budget.toFixed(3)} s/s): ${withinSpeed === 'none' ? 'none — adaptation not used' : bestOf(withinSpeed, budget)}`,
  );
  // Speed: each system's whole decoding (first pass + estimate + second pass) against the untuned CLI.
  const wallOf = (prefix: string) =>
    costs.filter((r) => r[0]!.startsWith(prefix)).reduce((a, r) => a + Number(r[1]), 0);
  const firstWall = wallOf('first pass');
  const speed = [['system', 'wall s', 'RTF', '× untuned CLI wall']];
  for (const [name, wall] of [
    ['first pass', firstWall],
    ['mllr/rec', firstWall + wallOf('mllr/rec')],
    ['mllr/spk', firstWall + wallOf('mllr/spk')],
    ['vtln (grid)', firstWall + wallOf('vtln')],
    // The later recordings' share of the first pass is replaced by their adapted decode.
    ['mllr/online', firstWall * (1 - onlineReplacedAudio / audio) + wallOf('mllr/online')],
  ] as const) {
    if (name !== 'first pass' && wall === firstWall) continue;
    speed.push([
      name,
      wall.toFixed(1),
      (wall / audio).toFixed(3),
      Number.isFinite(baselineWall) ? (wall / baselineWall).toFixed(2) : '-',
    ]);
  }
  console.log(
    '\ndecoding wall time (VAD not included; targets: ≤ 0.6 × the untuned CLI, RTF ≤ 0.25 for the whole pipeline)',
  );
  print(speed);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
