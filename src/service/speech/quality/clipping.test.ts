import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { resolveMediaTools } from '../../media/tools';
import { clipLevels, countClipped } from './clipping';
import { asrClips, clipAtGain, halves, haveAudio, loadAudio, RATE } from './signals.testutil';

const tools = resolveMediaTools();

function resample(pcm: Float32Array, from: number, to: number): Float32Array {
  const out = execFileSync(
    tools.ffmpeg,
    [
      '-nostdin',
      '-loglevel',
      'error',
      '-f',
      'f32le',
      '-ar',
      String(from),
      '-ac',
      '1',
      '-i',
      'pipe:0',
      '-ar',
      String(to),
      '-f',
      'f32le',
      'pipe:1',
    ],
    { input: Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength), maxBuffer: 1 << 30 },
  );
  return new Float32Array(out.buffer, out.byteOffset, out.byteLength / 4);
}

function peakOf(pcm: Float32Array): number {
  return pcm.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
}

function ratio(pcm: Float32Array): number {
  return countClipped(pcm, 0, pcm.length, clipLevels(pcm)) / pcm.length;
}

describe('clipLevels on constructed signals', () => {
  it('finds the plateau of a clipped sine on each side, and nothing on the clean sine', () => {
    // 100 Hz has a whole period of 160 samples: the peak sample recurs exactly, but alone; and a steady
    // tone's amplitudes pile up at its peak (the arcsine distribution), with nothing above it.
    const sine = Float32Array.from(
      { length: RATE },
      (_, i) => 0.5 * Math.sin((2 * Math.PI * 100 * i) / RATE + 0.3),
    );
    expect(clipLevels(sine)).toEqual({ positive: null, negative: null });
    const { pcm, ratio: truth } = clipAtGain(sine, 2.5);
    expect(ratio(pcm)).toBeCloseTo(truth, 4);
    // Only the positive side clipped.
    const half = sine.map((v) => Math.min(v, 0.4));
    const levels = clipLevels(half);
    expect(levels.positive).toBeCloseTo(0.4, 3);
    expect(levels.negative).toBeNull();
  });

  it('ignores quiet recordings whose peak is a few quantisation steps', () => {
    const quiet = Float32Array.from({ length: RATE }, (_, i) => Math.round(3 * Math.sin(i / 10)) / 32768);
    expect(clipLevels(quiet)).toEqual({ positive: null, negative: null });
  });
});

describe.skipIf(!haveAudio)('clipping_ratio on speech clipped by a known gain', () => {
  // Gains relative to each clip's peak: 1.5× clips ~0.05%, 3× ~1–3%, 6× ~5–12% of samples.
  const GAINS = [1.5, 3, 6];

  it('is within 10% of the true share of clipped samples (fit and check halves)', async () => {
    const { fit, check } = halves(
      asrClips('ljspeech').concat(asrClips('librispeech'), asrClips('amateur_LJ003-001')),
    );
    for (const [name, clips] of [
      ['fit', fit],
      ['check', check],
    ] as const) {
      const errors: number[] = [];
      for (const clip of clips) {
        const pcm = await loadAudio(`asr/${clip}`);
        for (const gain of GAINS) {
          const clipped = clipAtGain(pcm, gain / peakOf(pcm));
          errors.push(Math.abs(ratio(clipped.pcm) / clipped.ratio - 1));
        }
      }
      errors.sort((a, b) => a - b);
      console.log(
        `clipping ${name} (${clips.length} clips × ${GAINS.length} gains): relative error median ${(errors[errors.length >> 1]! * 100).toFixed(2)}%, max ${(errors.at(-1)! * 100).toFixed(2)}%`,
      );
      expect(errors.at(-1)!).toBeLessThanOrEqual(0.1);
    }
  });

  it('still reads clipping that happened at 48 kHz before resampling to 16 kHz (rippled rail)', async () => {
    const errors: number[] = [];
    for (const clip of [
      'ljspeech_LJ001-0001.flac',
      'librispeech_test_clean_1089-134686-0000.flac',
      'amateur_LJ003-0010.flac',
    ]) {
      const at48 = resample(await loadAudio(`asr/${clip}`), RATE, 48_000);
      for (const gain of [3, 6]) {
        const clipped = clipAtGain(at48, gain / peakOf(at48));
        errors.push(Math.abs(ratio(resample(clipped.pcm, 48_000, RATE)) / clipped.ratio - 1));
      }
    }
    console.log(`clipping after resampling: relative error max ${(Math.max(...errors) * 100).toFixed(1)}%`);
    expect(Math.max(...errors)).toBeLessThanOrEqual(0.15);
  });

  it('finds no clipping in the clean LibriSpeech and LJSpeech originals except the one that is clipped', async () => {
    const flagged = [];
    for (const clip of asrClips('librispeech').concat(asrClips('ljspeech'))) {
      const levels = clipLevels(await loadAudio(`asr/${clip}`));
      if (levels.positive !== null || levels.negative !== null) flagged.push(clip);
    }
    // LJ001-0017 has 32 runs of 2–5 samples pinned at −0.9127: it was clipped before it was normalised.
    expect(flagged).toEqual(['ljspeech_LJ001-0017.flac']);
  });
});
