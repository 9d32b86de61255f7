import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  decodeSamples,
  decodeWav,
  encodeSamples,
  encodeWav,
  parseWavHeader,
  readFrames,
  readWavLayout,
  writeFrames,
  type SampleFormat,
} from './wav';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'takeline-wav-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('WAV samples', () => {
  it.each(['s16', 's24'] as const)('re-encodes decoded %s bytes to the same bytes', (format) => {
    // 600 bytes: a whole number of samples in every format.
    const whole = Buffer.alloc(600);
    for (let i = 0; i < whole.length; i++) whole[i] = (i * 7919 + 13) & 0xff;
    const samples = decodeSamples(whole, format);
    expect(encodeSamples(samples, format).equals(whole)).toBe(true);
  });

  it('keeps float samples exactly and 32-bit integers to float precision', () => {
    const values = new Float32Array([0, 0.5, -0.25, 1e-7, -0.999, 0.123456]);
    expect(Array.from(decodeSamples(encodeSamples(values, 'f32'), 'f32'))).toEqual(Array.from(values));
    const s32 = decodeSamples(encodeSamples(values, 's32'), 's32');
    values.forEach((v, i) => expect(s32[i]).toBeCloseTo(v, 7));
  });

  it('rounds and clips integers', () => {
    const bytes = encodeSamples(new Float32Array([1, -1, 0.5, 2, -2, 1 / 65536]), 's16');
    expect([0, 1, 2, 3, 4, 5].map((i) => bytes.readInt16LE(i * 2))).toEqual([32767, -32768, 16384, 32767, -32768, 1]);
  });
});

describe('WAV files', () => {
  it('reads what ffmpeg writes: extensible 24-bit six channels, float stereo, a LIST chunk', () => {
    const cases: Array<[string, string[], { channels: number; sampleFormat: SampleFormat; sampleRate: number }]> = [
      ['six.wav', ['-ac', '6', '-c:a', 'pcm_s24le'], { channels: 6, sampleFormat: 's24', sampleRate: 48000 }],
      ['float.wav', ['-ac', '2', '-c:a', 'pcm_f32le'], { channels: 2, sampleFormat: 'f32', sampleRate: 48000 }],
      ['list.wav', ['-ac', '1', '-c:a', 'pcm_s16le', '-metadata', 'title=Take'], { channels: 1, sampleFormat: 's16', sampleRate: 48000 }],
    ];
    for (const [name, args, expected] of cases) {
      const file = path.join(dir, name);
      execFileSync('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'sine=f=440:r=48000:d=0.5', ...args, file]);
      const fd = fs.openSync(file, 'r');
      try {
        const layout = readWavLayout(fd);
        expect(layout).toMatchObject({ ...expected, frames: 24000 });
        const frames = readFrames(fd, layout, 100, 10);
        expect(frames.length).toBe(10 * expected.channels);
        const decoded = decodeWav(fs.readFileSync(file));
        expect(Array.from(frames)).toEqual(Array.from(decoded.samples.subarray(100 * expected.channels, 110 * expected.channels)));
      } finally {
        fs.closeSync(fd);
      }
    }
  });

  it('writes headers ffprobe reads, and rewrites frames in place without touching others', () => {
    for (const [channels, sampleFormat] of [[1, 's16'], [2, 's24'], [6, 'f32']] as const) {
      const samples = new Float32Array(1000 * channels).map((_, i) => Math.sin(i / 10) * 0.5);
      const file = path.join(dir, `mine-${channels}.wav`);
      fs.writeFileSync(file, encodeWav(samples, { sampleRate: 44100, channels, sampleFormat }));
      const probe = JSON.parse(execFileSync('ffprobe', ['-v', 'error', '-print_format', 'json', '-show_streams', file], { encoding: 'utf8' }));
      expect(probe.streams[0]).toMatchObject({ channels, sample_rate: '44100', duration_ts: 1000 });
      const before = fs.readFileSync(file);
      const fd = fs.openSync(file, 'r+');
      try {
        const layout = readWavLayout(fd);
        writeFrames(fd, layout, 200, new Float32Array(10 * channels).fill(0.25));
        expect(() => writeFrames(fd, layout, 995, new Float32Array(10 * channels))).toThrow(RangeError);
      } finally {
        fs.closeSync(fd);
      }
      const after = fs.readFileSync(file);
      const fb = channels * { s16: 2, s24: 3, f32: 4 }[sampleFormat];
      const data = parseWavHeader(after).dataOffset;
      expect(after.subarray(0, data + 200 * fb).equals(before.subarray(0, data + 200 * fb))).toBe(true);
      expect(after.subarray(data + 210 * fb).equals(before.subarray(data + 210 * fb))).toBe(true);
      expect(decodeWav(after).samples[205 * channels]).toBeCloseTo(0.25, 4);
    }
  });

  it('refuses what it cannot read', () => {
    expect(() => parseWavHeader(Buffer.from('not a wave file at all'))).toThrow(/RIFF/);
  });
});
