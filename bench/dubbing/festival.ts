/**
 * Where festival's HTS voice spends a short text's time (`/v1/audio/speech`'s first byte).
 *
 *   node --import tsx bench/dubbing/festival.ts [--runs 7]
 *
 * Each figure is the median of `--runs` (after one unmeasured run), wall milliseconds and CPU milliseconds
 * (from /proc: the program's own and its waited-for children's, so independent of the machine's load):
 *   1. festival starting and ending (init.scm, the lexicon): `festival --batch (set! …)`
 *   2. the same and the HTS voice selected: `festival --batch (voice_cmu_us_slt_arctic_hts)`
 *   3. a sentence as the service spoke it before this change: `text2wave -eval (voice…)`, a process per text
 *   4. the same sentence by a festival kept running with the voice loaded (festival-process.ts)
 * 3 − 2 is the synthesis of the sentence in a fresh process; 4 is what is left once festival is kept warm.
 */
import { flagValue } from '../lib/args';
import { runProgram } from '../../src/service/media/run-program';
import { readProcStat } from '../../src/service/proc-stat';
import { FestivalProcess } from '../../src/service/speech/synthesis/festival-process';

const RUNS = Number(flagValue('--runs') ?? 7);
const SENTENCE = 'The quick brown fox jumps over the lazy dog near the river bank.';
const VOICE = 'voice_cmu_us_slt_arctic_hts';

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

async function measure(label: string, once: () => Promise<number>): Promise<{ label: string; wall: number; cpu: number }> {
  await once();
  const walls: number[] = [];
  const cpus: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    const cpu = await once();
    walls.push(performance.now() - t0);
    cpus.push(cpu * 1000);
  }
  const row = { label, wall: median(walls), cpu: median(cpus) };
  process.stdout.write(`${label.padEnd(58)} wall ${row.wall.toFixed(0).padStart(5)} ms   CPU ${row.cpu.toFixed(0).padStart(5)} ms\n`);
  return row;
}

/** Runs a program to its end; returns the CPU seconds it used (it is a waited-for child afterwards). */
async function cold(program: string, args: string[], stdin = ''): Promise<number> {
  const before = readProcStat('self').childrenCpuSeconds;
  await runProgram(program, args, { stdin });
  return readProcStat('self').childrenCpuSeconds - before;
}

async function main(): Promise<void> {
  process.stdout.write(`festival's HTS voice, "${SENTENCE}" (median of ${RUNS} after one warm-up)\n`);
  await measure('1. festival start-up alone (init, lexicon)', () => cold('festival', ['--batch', '(set! takeline_nothing t)']));
  await measure('2. festival start-up and the HTS voice loaded', () => cold('festival', ['--batch', `(${VOICE})`]));
  await measure('3. text2wave: start-up, voice and the sentence (before)', () => cold('text2wave', ['-eval', `(${VOICE})`], `${SENTENCE}\n`));
  const warm = new FestivalProcess({ program: 'festival', voiceFunction: VOICE, env: process.env });
  try {
    await measure('4. festival kept running: the sentence only (after)', async () => {
      const pid = warm.pid;
      const before = pid ? readProcStat(pid).cpuSeconds : 0;
      await warm.speak(SENTENCE, 1);
      return readProcStat(warm.pid!).cpuSeconds - before;
    });
    // The first text of a fresh process: start-up and voice load overlap the text being written.
    const fresh: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      await warm.close();
      const t0 = performance.now();
      await warm.speak(SENTENCE, 1);
      fresh.push(performance.now() - t0);
    }
    process.stdout.write(`${'5. a fresh kept process: its first sentence'.padEnd(58)} wall ${median(fresh).toFixed(0).padStart(5)} ms\n`);
  } finally {
    await warm.close();
  }
}

main().catch((error) => {
  process.stderr.write(`${(error as Error)?.stack ?? String(error)}\n`);
  process.exit(1);
});
