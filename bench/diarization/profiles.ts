/**
 * Same- vs different-speaker similarity of voice profiles across different files of ../shared/audio/asr,
 * the evidence behind DEFAULT_MATCH_THRESHOLD. Speakers come from file names: every LJSpeech file is one
 * reader, every amateur_* file another, LibriSpeech files carry speaker ids, CMU ARCTIC files their
 * speaker code, the LibriVox Sense and Sensibility excerpts one reader; files with unknown speakers are
 * skipped. Speech frames come from the bench's energy VAD.
 *
 *   nice -n 10 node --import tsx bench/diarization/profiles.ts
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { computeMfcc } from '../../src/service/dsp/mfcc';
import { computeProfile } from '../../src/service/speech/speakers/profile';
import { DEFAULT_MATCH_THRESHOLD, profileSimilarity } from '../../src/service/speech/speakers/similarity';
import { decodeAudio, sharedDir } from './audio';
import { energySpans } from './energyVad';
import { speakerOf } from '../lib/readers';


const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;

async function main() {
  const dir = path.join(sharedDir, 'audio/asr');
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.flac') && speakerOf(f))
    .sort();
  const items: { file: string; speaker: string; profile: number[] }[] = [];
  for (const file of files) {
    const pcm = await decodeAudio(path.join(dir, file));
    const { mfcc, hopSeconds } = computeMfcc(pcm);
    const frames: number[] = [];
    for (const s of energySpans(pcm)) {
      for (
        let i = Math.floor(s.start / hopSeconds);
        i < Math.min(mfcc.frames, Math.floor(s.end / hopSeconds));
        i++
      )
        frames.push(i);
    }
    items.push({ file, speaker: speakerOf(file)!, profile: computeProfile(mfcc, frames) });
  }
  const same: number[] = [];
  const different: number[] = [];
  const byPair = new Map<string, number[]>();
  for (let i = 0; i < items.length; i++) {
    for (let j = i + 1; j < items.length; j++) {
      const a = items[i]!;
      const b = items[j]!;
      const s = profileSimilarity(a.profile, b.profile);
      (a.speaker === b.speaker ? same : different).push(s);
      const key = [a.speaker, b.speaker].sort().join(' / ');
      byPair.set(key, [...(byPair.get(key) ?? []), s]);
    }
  }
  same.sort((x, y) => x - y);
  different.sort((x, y) => x - y);
  const counts = new Map<string, number>();
  for (const it of items) counts.set(it.speaker, (counts.get(it.speaker) ?? 0) + 1);
  console.log(`${items.length} files, speakers: ${[...counts].map(([k, v]) => `${k}×${v}`).join(', ')}`);
  const describe = (name: string, v: number[]) =>
    console.log(
      `${name.padEnd(10)} pairs ${String(v.length).padStart(5)}  min ${v[0]!.toFixed(4)}  p5 ${percentile(v, 0.05).toFixed(4)}  median ${percentile(v, 0.5).toFixed(4)}  p95 ${percentile(v, 0.95).toFixed(4)}  max ${v[v.length - 1]!.toFixed(4)}`,
    );
  describe('same', same);
  describe('different', different);
  let eer = { gap: Infinity, t: 0, frr: 0, far: 0 };
  for (let t = 0.8; t <= 1; t += 0.0005) {
    const frr = same.filter((s) => s < t).length / same.length;
    const far = different.filter((s) => s >= t).length / different.length;
    if (Math.abs(frr - far) < eer.gap) eer = { gap: Math.abs(frr - far), t, frr, far };
  }
  console.log(`equal error rate ≈ ${(((eer.frr + eer.far) / 2) * 100).toFixed(2)}% at ${eer.t.toFixed(4)}`);
  for (const t of [0.95, 0.955, DEFAULT_MATCH_THRESHOLD, 0.965, 0.97]) {
    const frr = same.filter((s) => s < t).length / same.length;
    const far = different.filter((s) => s >= t).length / different.length;
    console.log(
      `threshold ${t.toFixed(3)}${t === DEFAULT_MATCH_THRESHOLD ? ' (default)' : '          '}: same rejected ${(frr * 100).toFixed(1)}%, different accepted ${(far * 100).toFixed(1)}%`,
    );
  }
  console.log('\nper speaker pair (min … max):');
  for (const [key, v] of [...byPair].sort((x, y) => Math.max(...y[1]) - Math.max(...x[1]))) {
    const [a, b] = key.split(' / ');
    console.log(
      `  ${a === b ? 'same' : 'diff'}  ${key.padEnd(36)} n=${String(v.length).padStart(4)}  ${Math.min(...v).toFixed(4)} … ${Math.max(...v).toFixed(4)}`,
    );
  }
}

await main();
