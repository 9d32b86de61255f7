import { describe, expect, it } from 'vitest';
import { peakAmplitude } from '../../dsp/levels';
import { SAMPLE_RATE } from '../types';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { decodeAudioToArray } from '../../media/decode';
import { resolveMediaTools } from '../../media/tools';
import { SileroVad } from '../vad/silero';
import { levelledBlocks, levelledRecording, levelledSpeech } from './levelled-blocks';

const block = (seconds: number, amplitude: number) => {
  const pcm = new Float32Array(Math.round(seconds * SAMPLE_RATE));
  for (let i = 0; i < pcm.length; i++) pcm[i] = amplitude * Math.sin(i / 3);
  return pcm;
};

async function* from(blocks: Float32Array[]) {
  yield* blocks;
}

async function collect(blocks: AsyncIterable<Float32Array>) {
  const out: Float32Array[] = [];
  for await (const b of blocks) out.push(b);
  return out;
}

describe('levelledBlocks', () => {
  it('brings a short recording to a 0.95 peak whatever its level, keeping its blocks', async () => {
    for (const level of [0.9, 0.05, 0.001]) {
      const input = [block(1, level), block(0.5, level / 2)];
      const out = await collect(levelledBlocks(from(input)));
      expect(out.map((b) => b.length)).toEqual([SAMPLE_RATE, SAMPLE_RATE / 2]);
      expect(peakAmplitude(out[0]!)).toBeCloseTo(0.95, 6);
      expect(peakAmplitude(out[1]!)).toBeCloseTo(0.475, 6);
      // The source's blocks are left as they were.
      expect(peakAmplitude(input[0]!)).toBe(peakAmplitude(block(1, level)));
    }
  });

  it('takes the first gain from the look-ahead, then only lowers it as louder audio comes', async () => {
    const input = [block(1, 0.1), block(1, 0.1), block(1, 0.05), block(1, 0.5), block(1, 0.1)];
    const out = await collect(levelledBlocks(from(input), 2));
    expect(out.map(peakAmplitude).map((p) => Number(p.toFixed(4)))).toEqual([0.95, 0.95, 0.475, 0.95, 0.19]);
  });

  it('gives the same blocks when the same audio is levelled again (what a resumed run relies on)', async () => {
    const input = () => [block(1, 0.2), block(1, 0.4), block(1, 0.3)];
    const a = await collect(levelledBlocks(from(input()), 1));
    const b = await collect(levelledBlocks(from(input()), 1));
    expect(b).toEqual(a);
  });

  it('passes digital silence through unscaled', async () => {
    const out = await collect(levelledBlocks(from([new Float32Array(10)])));
    expect(Array.from(out[0]!)).toEqual(new Array(10).fill(0));
  });
});

describe('levelledRecording and levelledSpeech', () => {
  it('levels a whole recording into a new array or in place, alike, past the look-ahead', async () => {
    const pcm = new Float32Array(40 * SAMPLE_RATE);
    for (let i = 0; i < pcm.length; i++) pcm[i] = (i < 35 * SAMPLE_RATE ? 0.01 : 0.1) * Math.sin(i / 5);
    const copy = await levelledRecording(pcm);
    expect(peakAmplitude(pcm.subarray(0, SAMPLE_RATE))).toBeCloseTo(0.01, 4);
    const inPlace = pcm.slice();
    expect(await levelledRecording(inPlace, inPlace)).toBe(inPlace);
    expect(inPlace).toEqual(copy);
    expect(peakAmplitude(copy.subarray(0, 30 * SAMPLE_RATE))).toBeCloseTo(0.95, 4);
    expect(peakAmplitude(copy.subarray(36 * SAMPLE_RATE))).toBeCloseTo(0.95, 4);
  });

  const shared = process.env.TAKELINE_SHARED_DIR ?? resolve(__dirname, '../../../../../shared');
  const meeting = join(shared, 'audio/diarization/trn08.flac');
  it.skipIf(!existsSync(meeting))(
    'finds, a second at a time, the spans the VAD finds on the levelled recording',
    async () => {
      const quiet = (await decodeAudioToArray(meeting, resolveMediaTools())).map((x) => x / 32);
      const vad = new SileroVad();
      try {
        const spans = await levelledSpeech(vad, quiet);
        expect(spans.length).toBeGreaterThan(0);
        expect(spans).toEqual(await vad.detect(await levelledRecording(quiet)));
      } finally {
        await vad.close();
      }
    },
  );
});
