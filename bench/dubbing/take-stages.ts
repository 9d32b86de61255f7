/**
 * Where one take's CPU goes: a line of the dub rendered as a take renders it (renderLine), with and
 * without PocketSphinx's forced alignment, against festival's synthesis alone (kept warm). Median of 5 after a
 * warm-up, wall and CPU milliseconds (this process and its children, live or finished, from /proc).
 *
 *   node --import tsx bench/dubbing/take-stages.ts
 *
 * The takes job adds the audition (the base revision's region crossfaded with the take, written as WAV) and
 * storing the take's two files to what this measures.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createVoiceRegistry } from '../../src/service/speech/synthesis/catalog';
import { resolveMediaTools } from '../../src/service/media/tools';
import { createPocketSphinxAligner } from '../../src/service/speech/alignment/pocketsphinx-aligner';
import { renderLine } from '../../src/service/dubbing/render-line';
import { openWav } from '../../src/service/media/wav';
import { plannedLine } from '../../src/service/dubbing/takes';
import type { LineRecord } from '../../src/service/storage/dub-store';
import { dubMaster, referenceLines } from '../../test/helpers/dubs';
import { dubLine } from '../../test/helpers/dub-lines';
import { modelsDir } from '../../test/helpers/paths';
import { processTreeCpuSeconds } from '../team/tree-cpu';

const SECONDS = 120;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'takeline-take-stages-'));
  const voices = createVoiceRegistry(process.env, { modelsDir });
  const aligner = createPocketSphinxAligner({ env: process.env });
  try {
    const source = openWav(dubMaster(tmp, SECONDS, { rate: 48000, channels: 2, codec: 'pcm_s24le' }));
    const lines: LineRecord[] = referenceLines(SECONDS).map((l, i) => dubLine(i + 1, l.start, l.end, l.text, { speaker: l.speaker }));
    const found = voices.lookupRef('festival-hts/slt');
    if (!found.ok) throw new Error(found.message);
    const inputs = { voices, tools: resolveMediaTools(), source, background: null };
    const measure = async (label: string, work: () => Promise<unknown>) => {
      await work();
      const walls: number[] = [];
      const cpus: number[] = [];
      for (let i = 0; i < 5; i++) {
        const cpu = processTreeCpuSeconds(process.pid);
        const t0 = performance.now();
        await work();
        walls.push(performance.now() - t0);
        cpus.push((processTreeCpuSeconds(process.pid) - cpu) * 1000);
      }
      process.stdout.write(`  ${label.padEnd(44)} wall ${median(walls).toFixed(0).padStart(5)} ms   CPU ${median(cpus).toFixed(0).padStart(5)} ms\n`);
    };
    for (const speed of [null, 0.9]) {
      const plan = plannedLine(lines, 2, 'festival-hts/slt', speed, SECONDS);
      process.stdout.write(`line 3 (${plan.text.split(' ').length} words), festival-hts/slt, speed ${speed ?? 'fitted'}\n`);
      await measure('synthesis alone (festival kept running)', () => voices.speak(found.spec, 'slt', plan.text, { speed: speed ?? 1 }));
      await measure('renderLine without the aligner', () => renderLine({ ...inputs, aligner: null }, plan));
      await measure('renderLine (with PocketSphinx alignment)', () => renderLine({ ...inputs, aligner }, plan));
    }
    fs.closeSync(source.fd);
  } finally {
    await voices.close();
    await aligner.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((error) => {
  process.stderr.write(`${(error as Error)?.stack ?? String(error)}\n`);
  process.exit(1);
});
