import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computePeaks, PeakAccumulator } from './peaks';
import { resolveMediaTools } from './tools';

describe('PeakAccumulator', () => {
  it('takes max |x| per bucket regardless of how the blocks are cut', () => {
    // 1 s at 16 kHz, 4 peaks per second: buckets of 4000 samples with known extremes.
    const pcm = new Float32Array(16_000);
    pcm[100] = 0.25;
    pcm[4_500] = -0.8;
    pcm[9_000] = 0.5;
    pcm[9_001] = -0.6;
    pcm[15_999] = 1.7; // clipped input is reported as 1
    for (const cut of [1, 333, 4_000, 16_000]) {
      const acc = new PeakAccumulator(4);
      for (let i = 0; i < pcm.length; i += cut) acc.push(pcm.subarray(i, i + cut));
      expect(acc.finish()).toEqual({ duration: 1, peaks_per_second: 4, peaks: [0.25, 0.8, 0.6, 1] });
    }
  });

  it('keeps a short final bucket and places edges without drift', () => {
    const acc = new PeakAccumulator(3); // 5333.33 samples per bucket
    const pcm = new Float32Array(16_000 + 100).fill(0.1);
    acc.push(pcm);
    const { peaks, duration } = acc.finish();
    expect(peaks).toHaveLength(4);
    expect(duration).toBeCloseTo(1.006, 3);
  });

  it('returns nothing for no samples', () => {
    expect(new PeakAccumulator(50).finish()).toEqual({ duration: 0, peaks_per_second: 50, peaks: [] });
  });
});

describe('computePeaks', () => {
  const tools = resolveMediaTools();
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'takeline-peaks-'));
    // 4 s: 1 s at amplitude 0.2, 1 s of silence, 1 s at 0.9, then 1 s rising linearly from 0 to 1.
    const expr = 'if(lt(t,1),0.2,if(lt(t,2),0,if(lt(t,3),0.9,(t-3))))*sin(2*PI*200*t)';
    execFileSync(tools.ffmpeg, [
      '-nostdin', '-loglevel', 'error', '-y', '-f', 'lavfi', '-i', `aevalsrc='${expr}':s=16000:d=4`,
      '-c:a', 'pcm_f32le', join(dir, 'envelope.wav'),
    ]); // prettier-ignore
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('follows a known amplitude envelope at 50 peaks per second', async () => {
    const result = await computePeaks(join(dir, 'envelope.wav'), tools, { peaksPerSecond: 50 });
    expect(result.duration).toBe(4);
    expect(result.peaks_per_second).toBe(50);
    expect(result.peaks).toHaveLength(200);
    // Each 20 ms bucket spans 4 periods of the 200 Hz tone, so it sees the envelope's value at the crest.
    for (let k = 0; k < 200; k++) {
      const t = (k + 1) / 50; // the envelope is largest at the bucket's end in the ramp
      const expected = k < 50 ? 0.2 : k < 100 ? 0 : k < 150 ? 0.9 : t - 3;
      expect(Math.abs(result.peaks[k]! - expected)).toBeLessThan(0.011);
    }
  });
});
