import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectSamples, decodeAudio, decodeAudioToArray, initialCapacity, MediaDecodeError, probeAudioDuration } from './decode';
import { resolveMediaTools } from './tools';

const tools = resolveMediaTools();
let dir = '';

function ffmpeg(args: string[]): void {
  execFileSync(tools.ffmpeg, ['-nostdin', '-hide_banner', '-loglevel', 'error', '-y', ...args]);
}

function rms(pcm: Float32Array, from = 0, to = pcm.length): number {
  let sum = 0;
  for (let i = from; i < to; i++) sum += pcm[i]! * pcm[i]!;
  return Math.sqrt(sum / Math.max(1, to - from));
}

// A 2 s, 440 Hz sine at amplitude 0.5 (RMS 0.354; lavfi `sine` is fixed at 1/8, so aevalsrc), encoded in each container the studio accepts.
const SINE = ['-f', 'lavfi', '-i', 'aevalsrc=0.5*sin(2*PI*440*t):s=44100:d=2'];
const containers: { file: string; args: string[] }[] = [
  { file: 'a.wav', args: [...SINE] },
  { file: 'a.flac', args: [...SINE] },
  { file: 'a.mp3', args: [...SINE, '-c:a', 'libmp3lame'] },
  { file: 'a.m4a', args: [...SINE, '-c:a', 'aac'] },
  { file: 'a.ogg', args: [...SINE, '-c:a', 'libopus'] },
  { file: 'a.webm', args: [...SINE, '-c:a', 'libopus'] },
  {
    file: 'a.mp4',
    args: [
      '-f',
      'lavfi',
      '-i',
      'color=c=black:s=64x64:d=2',
      ...SINE,
      '-c:v',
      'libx264',
      '-c:a',
      'aac',
      '-shortest',
    ],
  },
  {
    file: 'a.mov',
    args: [
      '-f',
      'lavfi',
      '-i',
      'color=c=black:s=64x64:d=2',
      ...SINE,
      '-c:v',
      'mpeg4',
      '-c:a',
      'aac',
      '-shortest',
    ],
  },
];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'takeline-decode-'));
  for (const { file, args } of containers) ffmpeg([...args, join(dir, file)]);
  // Left channel: sine at 0.5; right: silence. A true downmix halves the level, taking one channel would not.
  ffmpeg([
    '-f', 'lavfi', '-i', 'aevalsrc=0.5*sin(2*PI*440*t):s=48000:d=2',
    '-f', 'lavfi', '-i', 'anullsrc=r=48000:cl=mono:d=2',
    '-filter_complex', '[0:a][1:a]amerge=inputs=2[a]', '-map', '[a]', '-ac', '2', join(dir, 'stereo.wav'),
  ]); // prettier-ignore
  ffmpeg(['-f', 'lavfi', '-i', 'anullsrc=r=16000:cl=mono', '-t', '1.5', join(dir, 'silence.wav')]);
  ffmpeg(['-f', 'lavfi', '-i', 'color=c=black:s=64x64:d=1', '-c:v', 'libx264', join(dir, 'video_only.mp4')]);
  writeFileSync(
    join(dir, 'garbage.wav'),
    Buffer.from('RIFF this is not really a wave file at all'.repeat(20)),
  );
  ffmpeg(['-f', 'lavfi', '-i', 'sine=frequency=300:sample_rate=16000:duration=30', join(dir, 'long.wav')]);
}, 60_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('decodeAudio', () => {
  it('decodes without probing when the caller knows the length, to the same samples', async () => {
    // An ffprobe that leaves a mark: the hint must spare its process.
    const mark = join(dir, 'probed');
    const probe = join(dir, 'ffprobe-marking');
    writeFileSync(probe, `#!/bin/sh\ntouch '${mark}'\nexec '${tools.ffprobe}' "$@"\n`, { mode: 0o755 });
    const marking = { ...tools, ffprobe: probe };
    const hinted = await decodeAudioToArray(join(dir, 'a.wav'), marking, { durationHint: 2 });
    expect(existsSync(mark)).toBe(false);
    const probed = await decodeAudioToArray(join(dir, 'a.wav'), marking);
    expect(existsSync(mark)).toBe(true);
    expect(hinted.length).toBe(probed.length);
    expect(Buffer.from(hinted.buffer, hinted.byteOffset, hinted.byteLength).equals(Buffer.from(probed.buffer, probed.byteOffset, probed.byteLength))).toBe(true);
  });

  it.each(containers.map((c) => c.file))('decodes %s to 16 kHz mono float32', async (file) => {
    const pcm = await decodeAudioToArray(join(dir, file), tools);
    // Lossy codecs add priming/padding samples; allow 60 ms.
    expect(Math.abs(pcm.length / 16_000 - 2)).toBeLessThan(0.06);
    // Skip the edges (codec fades) and check the level survived within a few percent.
    expect(rms(pcm, 4_000, 28_000)).toBeGreaterThan(0.33);
    expect(rms(pcm, 4_000, 28_000)).toBeLessThan(0.38);
  });

  it('downmixes two channels to one', async () => {
    const pcm = await decodeAudioToArray(join(dir, 'stereo.wav'), tools);
    expect(pcm.length).toBe(32_000);
    const level = rms(pcm, 4_000, 28_000);
    // ffmpeg's stereo→mono matrix takes each side at −3 dB: amplitude 0.5·0.707, RMS 0.25. Taking only the
    // left channel would give RMS 0.354, averaging 0.177.
    expect(level).toBeGreaterThan(0.23);
    expect(level).toBeLessThan(0.27);
  });

  it('yields fixed-size blocks with a short last block', async () => {
    const sizes: number[] = [];
    for await (const block of decodeAudio(join(dir, 'a.wav'), tools, { blockSamples: 5_000 }))
      sizes.push(block.length);
    expect(sizes.slice(0, -1).every((n) => n === 5_000)).toBe(true);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(32_000);
    expect(sizes.at(-1)).toBe(2_000);
  });

  it('decodes digital silence to zeros', async () => {
    const pcm = await decodeAudioToArray(join(dir, 'silence.wav'), tools);
    expect(pcm.length).toBe(24_000);
    expect(rms(pcm)).toBe(0);
  });

  it('reports a video-only file as having no audio stream', async () => {
    const error = await decodeAudioToArray(join(dir, 'video_only.mp4'), tools).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MediaDecodeError);
    expect((error as MediaDecodeError).code).toBe('no_audio_stream');
  });

  it('reports a broken file as undecodable', async () => {
    const error = await decodeAudioToArray(join(dir, 'garbage.wav'), tools).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MediaDecodeError);
    expect((error as MediaDecodeError).code).toBe('undecodable');
  });

  it('reports a missing file as undecodable', async () => {
    const error = await decodeAudioToArray(join(dir, 'nope.wav'), tools).catch((e: unknown) => e);
    expect((error as MediaDecodeError).code).toBe('undecodable');
  });

  it('stops ffmpeg when aborted mid-stream', async () => {
    const controller = new AbortController();
    let seen = 0;
    const run = (async () => {
      for await (const block of decodeAudio(join(dir, 'long.wav'), tools, {
        signal: controller.signal,
        blockSamples: 1_600,
      })) {
        seen += block.length;
        if (seen >= 16_000) controller.abort();
      }
    })();
    await expect(run).rejects.toThrow();
    expect(seen).toBeLessThan(30 * 16_000);
  });

  it('stops an ffmpeg that hangs without output after the stall limit, with a clear error', async () => {
    const hang = join(dir, 'hanging-ffmpeg.sh');
    writeFileSync(hang, '#!/bin/sh\nexec sleep 60\n', { mode: 0o755 });
    const started = Date.now();
    const error = await decodeAudioToArray(join(dir, 'long.wav'), { ...tools, ffmpeg: hang }, { stallMs: 300 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MediaDecodeError);
    expect((error as MediaDecodeError).message).toMatch(/produced no audio for 0.3 s and was stopped/);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('does not count a slow consumer against the stall limit', async () => {
    let blocks = 0;
    // ffmpeg writes the whole 2 s file at once; the consumer holds each block longer than the limit. The
    // limit leaves ffmpeg 3 s to write the next block once it is read: at a low priority on a loaded machine
    // (the decoder runs niced) 1 s was not always enough.
    for await (const _block of decodeAudio(join(dir, 'a.wav'), tools, { stallMs: 3_000, blockSamples: 16_000 })) {
      blocks++;
      await new Promise((r) => setTimeout(r, 3_200));
    }
    expect(blocks).toBe(2);
  });

  it('probes the audio duration, and null without audio', async () => {
    expect(await probeAudioDuration(join(dir, 'long.wav'), tools)).toBeCloseTo(30, 1);
    expect(await probeAudioDuration(join(dir, 'video_only.mp4'), tools)).toBeNull();
  });
});

// The samples are held once (one buffer sized from the container's duration), not as blocks and a copy.
describe('decodeAudioToArray into one buffer', () => {
  it('gives exactly the samples decodeAudio yields, in one buffer no more than a second longer', async () => {
    const file = join(dir, 'long.wav');
    const blocks: Float32Array[] = [];
    for await (const b of decodeAudio(file, tools)) blocks.push(b);
    const expected = new Float32Array(blocks.reduce((n, b) => n + b.length, 0));
    let at = 0;
    for (const b of blocks) {
      expected.set(b, at);
      at += b.length;
    }
    const pcm = await decodeAudioToArray(file, tools);
    expect(pcm.length).toBe(30 * 16_000);
    expect(pcm).toEqual(expected);
    expect(pcm.buffer.byteLength).toBeLessThanOrEqual(pcm.byteLength + 16_000 * 4);
  });

  it('grows the buffer when the duration hint falls short, and reserves a minute without one', async () => {
    async function* blocksOf(sizes: number[]) {
      let v = 0;
      for (const n of sizes) yield Float32Array.from({ length: n }, () => v++);
    }
    const out = await collectSamples(blocksOf([3, 5, 7, 1]), 4);
    expect([...out]).toEqual(Array.from({ length: 16 }, (_, i) => i));
    expect(await collectSamples(blocksOf([]), 4)).toHaveLength(0);
    expect(initialCapacity(null)).toBe(60 * 16_000);
    expect(initialCapacity(2.5)).toBe(2.5 * 16_000 + 16_000);
    expect(initialCapacity(Number.NaN)).toBe(60 * 16_000);
  });
});
