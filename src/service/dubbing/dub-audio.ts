import { execFile } from 'node:child_process';
import { runProgram } from '../media/run-program';
import { BITEXACT_ARGS } from '../media/encode';
import type { MediaTools } from '../media/tools';
import { NotMediaError } from '../media/probe';
import type { SampleFormat, WavFormat } from '../media/wav';

/** Dubs are stored as WAV, whose sizes are 32-bit: the samples of one revision must stay under 4 GiB. */
export const MAX_DUB_BYTES = 0xffff_0000;
export const MAX_DUB_CHANNELS = 8;

const PCM_CODECS: Record<SampleFormat, string> = { s16: 'pcm_s16le', s24: 'pcm_s24le', s32: 'pcm_s32le', f32: 'pcm_f32le' };

/**
 * How to store a decoded stream without losing anything: 16-bit sources as 16-bit, 24-bit (ffmpeg
 * decodes them to 32-bit with 24 significant bits) as 24-bit, wider integers as 32-bit, and anything
 * decoded to floating point (mp3, aac, opus, float WAV) as 32-bit float.
 */
export function storedSampleFormat(sampleFmt: string, bitsPerRawSample: number | null): SampleFormat {
  const base = sampleFmt.replace(/p$/, '');
  if (base === 'u8' || base === 's16') return 's16';
  if (base === 's32' || base === 's64') return bitsPerRawSample !== null && bitsPerRawSample > 0 && bitsPerRawSample <= 24 ? 's24' : 's32';
  return 'f32';
}

export interface DubAudioFormat extends WavFormat {
  duration: number;
}

/** The first audio stream's rate, channels and the sample format to store it in (ffprobe). */
export function probeDubAudio(tools: MediaTools, file: string): Promise<DubAudioFormat> {
  return new Promise((resolve, reject) => {
    execFile(
      tools.ffprobe,
      ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', '-select_streams', 'a:0', '--', file],
      { maxBuffer: 4 * 1024 * 1024, timeout: 60_000 },
      (error, stdout) => {
        let parsed: { streams?: Array<Record<string, unknown>>; format?: { duration?: string } } = {};
        try {
          parsed = JSON.parse(stdout || '{}');
        } catch {
          // Reported below as not audio.
        }
        const stream = parsed.streams?.[0];
        if (error || !stream) return reject(new NotMediaError('The file has no audio that can be decoded.'));
        const bits = Number(stream.bits_per_raw_sample);
        const duration = Number(stream.duration ?? parsed.format?.duration);
        resolve({
          sampleRate: Number(stream.sample_rate),
          channels: Number(stream.channels),
          sampleFormat: storedSampleFormat(String(stream.sample_fmt ?? 'flt'), Number.isFinite(bits) ? bits : null),
          duration: Number.isFinite(duration) ? duration : 0,
        });
      },
    );
  });
}

/**
 * Decodes the first audio stream of `input` into a WAV file in `target`'s format (resampling and
 * remixing channels only where the source differs), without metadata, so the bytes depend only on the
 * samples.
 */
export async function decodeToWav(tools: MediaTools, input: string, output: string, target: WavFormat, signal?: AbortSignal): Promise<void> {
  await runProgram(
    tools.ffmpeg,
    [
      '-nostdin',
      '-hide_banner',
      '-loglevel',
      'error',
      '-i',
      input,
      '-map',
      '0:a:0',
      '-vn',
      '-sn',
      '-dn',
      '-ar',
      String(target.sampleRate),
      '-ac',
      String(target.channels),
      '-c:a',
      PCM_CODECS[target.sampleFormat],
      ...BITEXACT_ARGS,
      '-f',
      'wav',
      '-y',
      output,
    ],
    { signal, timeoutMs: 30 * 60_000 },
  );
}
