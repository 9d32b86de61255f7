import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import type { MediaTools } from './tools';
import type { SPEECH_RESPONSE_FORMATS } from '../../shared/schemas';

/** The audio formats of OpenAI's speech endpoint. */
export type SpeechFormat = (typeof SPEECH_RESPONSE_FORMATS)[number];

/** OpenAI's speech output rate; `pcm` is documented as 24 kHz 16-bit mono, and every format uses it. */
export const SPEECH_OUTPUT_RATE = 24_000;

export const SPEECH_CONTENT_TYPES: Record<SpeechFormat, string> = {
  mp3: 'audio/mpeg',
  opus: 'audio/ogg; codecs=opus',
  aac: 'audio/aac',
  flac: 'audio/flac',
  wav: 'audio/wav',
  pcm: 'audio/L16; rate=24000; channels=1',
};

const OUTPUT_ARGS: Record<SpeechFormat, string[]> = {
  mp3: ['-c:a', 'libmp3lame', '-b:a', '64k', '-f', 'mp3'],
  opus: ['-c:a', 'libopus', '-b:a', '32k', '-f', 'ogg'],
  aac: ['-c:a', 'aac', '-b:a', '64k', '-f', 'adts'],
  flac: ['-c:a', 'flac', '-f', 'flac'],
  wav: ['-c:a', 'pcm_s16le', '-f', 'wav'],
  pcm: ['-c:a', 'pcm_s16le', '-f', 's16le'],
};

/** ffmpeg output options for files that depend on the samples only: no encoder tag, no metadata. */
export const BITEXACT_ARGS = ['-map_metadata', '-1', '-fflags', '+bitexact', '-flags:a', '+bitexact'];

export function speechEncoderArgs(format: SpeechFormat, inputRate: number): string[] {
  return [
    '-nostdin',
    '-hide_banner',
    '-loglevel',
    'error',
    '-f',
    'f32le',
    '-ar',
    String(inputRate),
    '-ac',
    '1',
    '-i',
    'pipe:0',
    '-ar',
    String(SPEECH_OUTPUT_RATE),
    ...BITEXACT_ARGS,
    // Hand each packet on at once: without it ffmpeg holds ~32 KB (4 s of mp3) before the first byte.
    '-flush_packets',
    '1',
    ...OUTPUT_ARGS[format],
    'pipe:1',
  ];
}

export type EncoderProcess = ChildProcessByStdio<Writable, Readable, Readable>;

/**
 * A streaming encoder: write mono float PCM at `inputRate` to `stdin` as it is synthesized, read the
 * encoded format from `stdout` as ffmpeg produces it (wav and flac then carry "length unknown" headers,
 * as OpenAI's streamed files do).
 */
export function startSpeechEncoder(tools: MediaTools, format: SpeechFormat, inputRate: number): EncoderProcess {
  return spawn(tools.ffmpeg, speechEncoderArgs(format, inputRate), { stdio: ['pipe', 'pipe', 'pipe'] });
}

/** Float samples as the little-endian bytes ffmpeg's f32le input expects. */
export function f32leBytes(samples: Float32Array): Buffer {
  return Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength);
}
