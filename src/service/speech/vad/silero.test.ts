import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { decodeAudioToArray } from '../../media/decode';
import { resolveMediaTools } from '../../media/tools';
import type { Span } from '../types';
import { SileroVad } from './silero';

const shared = process.env.TAKELINE_SHARED_DIR ?? resolve(__dirname, '../../../../../shared');
const vadDir = join(shared, 'audio/events/vad_speechbrain');
const tools = resolveMediaTools();
const CLIP = 32_000; // the references label 2 s slices of each file

interface Example {
  file: string;
  offset: number;
  reference: Span[];
}

function loadExamples(): Example[] {
  const out: Example[] = [];
  for (const [json, file] of [
    ['VAD_dev.json', 'valid.wav'],
    ['VAD_train.json', 'train.wav'],
  ] as const) {
    const entries = JSON.parse(readFileSync(join(vadDir, json), 'utf8')) as Record<
      string,
      { wav: { start: number }; speech: string }
    >;
    for (const entry of Object.values(entries)) {
      const bounds = entry.speech.trim() ? entry.speech.trim().split(/\s+/).map(Number) : [];
      const reference: Span[] = [];
      for (let i = 0; i + 1 < bounds.length; i += 2)
        reference.push({ start: bounds[i]!, end: bounds[i + 1]! });
      out.push({ file, offset: entry.wav.start, reference });
    }
  }
  return out;
}

function frames(spans: Span[], n: number, hop: number): boolean[] {
  const out = new Array<boolean>(n).fill(false);
  for (const s of spans)
    for (let f = Math.floor(s.start / hop); f < Math.min(n, Math.ceil(s.end / hop)); f++) out[f] = true;
  return out;
}

const vad = new SileroVad();
afterAll(() => vad.close());

describe('SileroVad', () => {
  it('finds no speech in digital silence or faint noise', async () => {
    expect(await vad.detect(new Float32Array(16_000 * 5))).toEqual([]);
    let seed = 1;
    const noise = Float32Array.from({ length: 16_000 * 5 }, () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return (seed / 2 ** 31 - 0.5) * 0.002;
    });
    expect(await vad.detect(noise)).toEqual([]);
  });

  it.skipIf(!existsSync(vadDir))('matches the speechbrain boundaries (vad_speechbrain)', async () => {
    // Padding 0.03 s (Silero's own default) so the figure measures the detector, not the margin we add.
    const tight = new SileroVad({ speechPadSeconds: 0.03 });
    const hop = 0.01;
    let agree = 0;
    let total = 0;
    const boundaryErrors: number[] = [];
    const pcmByFile = new Map<string, Float32Array>();
    for (const ex of loadExamples()) {
      let pcm = pcmByFile.get(ex.file);
      if (!pcm) pcmByFile.set(ex.file, (pcm = await decodeAudioToArray(join(vadDir, ex.file), tools)));
      const detected = await tight.detect(pcm.subarray(ex.offset, ex.offset + CLIP));
      const n = CLIP / 16_000 / hop;
      const ref = frames(ex.reference, n, hop);
      const hyp = frames(detected, n, hop);
      for (let f = 0; f < n; f++) if (ref[f] === hyp[f]) agree++;
      total += n;
      // Boundaries on the slice edges are where the labeller cut the file, not where speech starts or stops.
      const hypEdges = detected.flatMap((s) => [s.start, s.end]);
      for (const edge of ex.reference.flatMap((s) => [s.start, s.end]).filter((t) => t > 0 && t < 2)) {
        boundaryErrors.push(Math.min(...hypEdges.map((h) => Math.abs(h - edge)), 2));
      }
    }
    await tight.close();
    const accuracy = agree / total;
    const meanError = boundaryErrors.reduce((a, b) => a + b, 0) / boundaryErrors.length;
    console.log(
      `vad_speechbrain: frame accuracy ${(accuracy * 100).toFixed(1)}% over ${total} frames; ` +
        `boundary error mean ${(meanError * 1000).toFixed(0)} ms, max ${(Math.max(...boundaryErrors) * 1000).toFixed(0)} ms ` +
        `over ${boundaryErrors.length} boundaries`,
    );
    expect(accuracy).toBeGreaterThan(0.9);
    expect(meanError).toBeLessThan(0.08);
    expect(Math.max(...boundaryErrors)).toBeLessThan(0.2);
  });

  it.skipIf(!existsSync(vadDir))('gives the same spans fed whole or in odd-sized blocks', async () => {
    const pcm = await decodeAudioToArray(join(vadDir, 'valid.wav'), tools);
    const whole = await vad.detect(pcm, { offset: 100 });
    const stream = vad.stream({ offset: 100 });
    const streamed: Span[] = [];
    for (let i = 0; i < pcm.length; i += 7_919)
      streamed.push(...(await stream.push(pcm.subarray(i, i + 7_919))));
    streamed.push(...(await stream.finish()));
    expect(streamed).toEqual(whole);
    expect(whole.length).toBeGreaterThan(0);
    expect(whole.every((s) => s.start >= 100 && s.end <= 100 + pcm.length / 16_000)).toBe(true);
  });

  it.skipIf(!existsSync(vadDir))('goes on from a snapshot, after a trip through JSON, exactly as the stream it was taken from', async () => {
    const pcm = await decodeAudioToArray(join(vadDir, 'valid.wav'), tools);
    const whole = await vad.detect(pcm, { offset: 100 });
    const block = 7_919; // odd-sized: each snapshot holds an unfinished window
    const blocks = Math.ceil(pcm.length / block);
    for (const cut of [1, Math.floor(blocks / 2), blocks - 1]) {
      const first = vad.stream({ offset: 100 });
      const spans: Span[] = [];
      for (let b = 0; b < cut; b++) spans.push(...(await first.push(pcm.subarray(b * block, (b + 1) * block))));
      const snapshot = JSON.parse(JSON.stringify(first.snapshot!()));
      expect(snapshot.samples).toBe(cut * block);
      // A new detector (nothing loaded yet), as in a restarted service.
      const fresh = new SileroVad();
      const resumed = fresh.stream({ offset: 100, resume: snapshot });
      for (let i = cut * block; i < pcm.length; i += block) spans.push(...(await resumed.push(pcm.subarray(i, i + block))));
      spans.push(...(await resumed.finish()));
      await fresh.close();
      expect(spans).toEqual(whole);
    }
    expect(() => vad.stream({ resume: { ...vad.stream().snapshot!(), state: '' } })).toThrow(/not a Silero v5 stream snapshot/);
  });

  it.skipIf(!existsSync(vadDir))('withSettings: other settings on the same model give what a detector of their own gives, at once with the owner', async () => {
    const pcm = (await decodeAudioToArray(join(vadDir, 'valid.wav'), tools)).subarray(0, 16_000 * 60);
    const settings = { threshold: 0.5, negThreshold: 0.35, minSilenceSeconds: 1, speechPadSeconds: 0.03 };
    const own = new SileroVad(settings);
    const expected = await own.detect(pcm);
    await own.close();
    const owner = new SileroVad();
    const derived = owner.withSettings(settings);
    // Both run at once on one session: the recurrent state travels with each stream, not in the session.
    const [mine, theirs] = await Promise.all([derived.detect(pcm), owner.detect(pcm)]);
    expect(mine).toEqual(expected);
    expect(theirs).toEqual(await vad.detect(pcm));
    expect(mine).not.toEqual(theirs); // the settings are the derived detector's own
    const release = vi.spyOn(((await import('onnxruntime-node')).InferenceSession as unknown as { prototype: { release(): Promise<void> } }).prototype, 'release');
    try {
      await derived.close(); // leaves the owner's model loaded
      expect(release).not.toHaveBeenCalled();
      expect(await owner.detect(pcm)).toEqual(theirs);
      await owner.close();
      expect(release).toHaveBeenCalledTimes(1);
    } finally {
      release.mockRestore();
    }
  });
});
