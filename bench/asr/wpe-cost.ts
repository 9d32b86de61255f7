/**
 * What the dereverberation costs per audio second, for several filter settings side by side in one run: WPE
 * (src/service/speech/enhancement/wpe.ts) on one 19 s chunk of read speech, as recorded and in a room, each setting
 * timed in turn, `--repeat` rounds, the median printed. A dry chunk is only checked (the gate stops it within the
 * first iteration); a reverberant one pays the whole filter.
 *
 *   node --import tsx bench/asr/wpe-cost.ts [--room ir_smartphone_mic_mono.flac] [--settings 10x3,20x2] [--repeat 5]
 *
 * A setting is `taps x iterations`.
 */
import { performance } from 'node:perf_hooks';
import { median } from '../../src/service/dsp/stats';
import { REVERBERANT_ABOVE_DB } from '../../src/service/speech/enhancement/reverberant-speech';
import { dereverberate } from '../../src/service/speech/enhancement/wpe';
import { asrClips, loadAudio } from '../../src/service/speech/quality/signals.testutil';
import { SAMPLE_RATE } from '../../src/service/speech/types';
import { degraded } from '../lib/degrade';
import { flagValue } from '../lib/args';

const arg = (name: string, fallback: string) => flagValue(name) ?? fallback;
const room = arg('--room', 'ir_smartphone_mic_mono.flac');
const repeat = Number(arg('--repeat', '5'));
const settings = arg('--settings', '10x3,20x1,20x2,30x1')
  .split(',')
  .map((s) => {
    const [taps, iterations] = s.split('x').map(Number);
    if (!(taps! > 0) || !(iterations! > 0)) throw new Error(`a setting is taps x iterations, got ${s}`);
    return { name: s, taps: taps!, iterations: iterations! };
  });

/** Clips of the amateur reader end to end until the chunk is as long as the pipeline's longest (20 s). */
async function chunk(): Promise<Float32Array> {
  const length = 19 * SAMPLE_RATE;
  const out = new Float32Array(length);
  let at = 0;
  for (const file of asrClips('amateur')) {
    if (at >= length) break;
    const pcm = await loadAudio(`asr/${file}`);
    out.set(pcm.subarray(0, length - at), at);
    at += Math.min(pcm.length, length - at);
  }
  return out.subarray(0, at);
}

async function main(): Promise<void> {
  const dry = await chunk();
  const wet = await degraded(dry, { room }, 0);
  const seconds = dry.length / SAMPLE_RATE;
  console.log(
    `one ${seconds.toFixed(1)} s chunk; room ${room}; gate ${REVERBERANT_ABOVE_DB} dB; ${repeat} rounds, settings in turn`,
  );
  const times = new Map<string, { dry: number[]; wet: number[]; applied: boolean[] }>();
  for (const s of settings) times.set(s.name, { dry: [], wet: [], applied: [] });
  for (let r = 0; r < repeat; r++) {
    for (const s of settings) {
      const t = times.get(s.name)!;
      for (const [pcm, into] of [
        [dry, t.dry],
        [wet, t.wet],
      ] as const) {
        const start = performance.now();
        const result = dereverberate(pcm, {
          taps: s.taps,
          iterations: s.iterations,
          skipBelowDb: REVERBERANT_ABOVE_DB,
        });
        into.push((performance.now() - start) / seconds);
        if (pcm === wet) t.applied.push(result.applied);
      }
    }
  }
  console.log(
    'taps x iterations   dry: ms per audio s   in the room: ms per audio s   room chunk dereverberated',
  );
  for (const s of settings) {
    const t = times.get(s.name)!;
    console.log(
      s.name.padEnd(20) +
        median(t.dry)!.toFixed(1).padStart(24) +
        median(t.wet)!.toFixed(1).padStart(30) +
        `   ${t.applied.every(Boolean) ? 'yes' : 'no'}`,
    );
  }
}

await main();
