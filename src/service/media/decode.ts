import { spawn } from 'node:child_process';
import { SAMPLE_RATE } from '../speech/types';
import { DEFAULT_DECODE_STALL_MS, type MediaTools } from './tools';
import { probeMedia } from './probe';
import { lowerProcessPriority } from '../jobs/background-priority';

/**
 * Streams any container ffmpeg can read as 16 kHz mono float32 PCM, in fixed-size blocks, so a long
 * recording never has to sit in memory whole. ffmpeg downmixes multichannel audio (`-ac 1`) and
 * resamples (`-ar 16000`); only the first audio stream is used.
 */

export type MediaDecodeErrorCode = 'no_audio_stream' | 'undecodable';

/** Why a file could not be decoded; `code` tells "has no audio at all" apart from "broken or unknown". */
export class MediaDecodeError extends Error {
  constructor(
    readonly code: MediaDecodeErrorCode,
    message: string,
    /** The tail of ffmpeg's stderr, for logs. */
    readonly detail = '',
  ) {
    super(message);
    this.name = 'MediaDecodeError';
  }
}

export function isNoAudioStreamError(error: unknown): error is MediaDecodeError {
  return error instanceof MediaDecodeError && error.code === 'no_audio_stream';
}

export interface DecodeOptions {
  signal?: AbortSignal;
  /** Samples per yielded block (the last block may be shorter). Default 16 000, one second. */
  blockSamples?: number;
  /** Overrides the tools' stall limit (ms without output from ffmpeg). */
  stallMs?: number;
}

const BYTES_PER_SAMPLE = 4;
const STDERR_KEEP = 4_000;

// ffmpeg 5–7 phrase "the input has no audio" in these ways when `-map 0:a:0` finds nothing.
const NO_AUDIO_PATTERNS = [
  /matches no streams/i,
  /does not contain any stream/i,
  /Output file .* does not contain/i,
];

export function ffmpegDecodeArgs(path: string): string[] {
  return [
    '-nostdin',
    '-hide_banner',
    '-loglevel',
    'error',
    '-i',
    path,
    '-map',
    '0:a:0',
    '-vn',
    '-sn',
    '-dn',
    '-ac',
    '1',
    '-ar',
    String(SAMPLE_RATE),
    '-f',
    'f32le',
    '-acodec',
    'pcm_f32le',
    'pipe:1',
  ];
}

export function classifyFfmpegFailure(stderr: string, exitCode: number | null): MediaDecodeError {
  const detail = stderr.trim().slice(-STDERR_KEEP);
  if (NO_AUDIO_PATTERNS.some((re) => re.test(stderr))) {
    return new MediaDecodeError('no_audio_stream', 'The file has no audio stream.', detail);
  }
  const lastLine = detail.split('\n').filter(Boolean).pop() ?? `ffmpeg exited with code ${exitCode}`;
  return new MediaDecodeError('undecodable', `The file could not be decoded: ${lastLine}`, detail);
}

function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason;
  const error = new Error('The operation was aborted.');
  error.name = 'AbortError';
  return error;
}

/**
 * Yields Float32Array blocks of `blockSamples` samples (each a fresh buffer the caller may keep).
 * Stopping the iteration early, or aborting `signal`, kills ffmpeg. Throws MediaDecodeError when ffmpeg
 * fails; a file whose audio decodes to zero samples simply yields nothing.
 */
export async function* decodeAudio(
  path: string,
  tools: MediaTools,
  options: DecodeOptions = {},
): AsyncGenerator<Float32Array, void, undefined> {
  const { signal } = options;
  const blockSamples = Math.max(1, Math.floor(options.blockSamples ?? SAMPLE_RATE));
  if (signal?.aborted) throw abortError(signal);

  const child = spawn(tools.ffmpeg, ffmpegDecodeArgs(path), { stdio: ['ignore', 'pipe', 'pipe'] });
  // Decodes feed background jobs (transcription, analysis, peaks): below the HTTP thread.
  lowerProcessPriority(child.pid);
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (text: string) => {
    stderr = (stderr + text).slice(-STDERR_KEEP * 4);
  });
  const exited = new Promise<{ code: number | null; error?: Error }>((resolve) => {
    child.once('error', (error) => resolve({ code: null, error }));
    child.once('close', (code) => resolve({ code }));
  });
  const onAbort = () => child.kill('SIGKILL');
  signal?.addEventListener('abort', onAbort, { once: true });

  // Stdout chunks are arbitrary byte runs; gather them into whole blocks of float32 samples.
  let block = new Float32Array(blockSamples);
  let blockBytes = new Uint8Array(block.buffer);
  let filled = 0;
  let carry = Buffer.alloc(0);
  let finished = false;
  // Only the time spent waiting for ffmpeg counts: while the caller holds a block, ffmpeg is held back.
  const stallMs = options.stallMs ?? tools.decodeStallMs ?? DEFAULT_DECODE_STALL_MS;
  let stalled = false;
  const chunks = (child.stdout as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  try {
    for (;;) {
      const watchdog = setTimeout(() => {
        stalled = true;
        child.kill('SIGKILL');
      }, stallMs);
      let next: IteratorResult<Buffer>;
      try {
        next = await chunks.next();
      } finally {
        clearTimeout(watchdog);
      }
      if (next.done) break;
      const chunk = next.value;
      const bytes = carry.length ? Buffer.concat([carry, chunk]) : chunk;
      const whole = bytes.length - (bytes.length % BYTES_PER_SAMPLE);
      carry = Buffer.from(bytes.subarray(whole));
      let pos = 0;
      while (pos < whole) {
        const take = Math.min(blockSamples - filled, (whole - pos) / BYTES_PER_SAMPLE);
        // f32le bytes copy straight into the block: every platform Node and Electron ship on is little-endian.
        blockBytes.set(bytes.subarray(pos, pos + take * BYTES_PER_SAMPLE), filled * BYTES_PER_SAMPLE);
        filled += take;
        pos += take * BYTES_PER_SAMPLE;
        if (filled === blockSamples) {
          yield block;
          block = new Float32Array(blockSamples);
          blockBytes = new Uint8Array(block.buffer);
          filled = 0;
        }
      }
    }
    const { code, error } = await exited;
    if (signal?.aborted) throw abortError(signal);
    if (stalled) {
      throw new MediaDecodeError('undecodable', `The file could not be decoded: ffmpeg produced no audio for ${stallMs / 1000} s and was stopped (the file may be damaged).`);
    }
    if (error) throw new Error(`Could not run ffmpeg ("${tools.ffmpeg}"): ${error.message}`);
    if (code !== 0) throw classifyFfmpegFailure(stderr, code);
    if (filled > 0) yield block.slice(0, filled);
    finished = true;
  } finally {
    signal?.removeEventListener('abort', onAbort);
    if (!finished && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}

/**
 * Decodes the whole file into one array (an hour is 230 MB). The samples go straight into one buffer sized
 * from the container's duration (a hint; grown by half when it falls short), so they are held once: kept
 * as blocks and then copied, an hour's analysis held 460 MB at the end of its decode, and the freed blocks
 * (small allocations) were not always given back to the system (bench/memory). The result may be
 * a view on a buffer up to a second longer (use byteOffset/byteLength with its `buffer`).
 */
export async function decodeAudioToArray(
  path: string,
  tools: MediaTools,
  /** `durationHint`: the length in seconds where the caller knows it (stored at upload): no ffprobe process then. */
  options: DecodeOptions & { durationHint?: number | null } = {},
): Promise<Float32Array> {
  const known = options.durationHint;
  const hint = known !== undefined && known !== null && Number.isFinite(known) && known > 0 ? known : await probeAudioDuration(path, tools, options.signal);
  return collectSamples(decodeAudio(path, tools, options), initialCapacity(hint));
}

/** Blocks gathered into one buffer of `capacity` samples, grown by half (at least) when they overflow it. */
export async function collectSamples(blocks: AsyncIterable<Float32Array>, capacity: number): Promise<Float32Array> {
  let out = new Float32Array(Math.max(1, capacity));
  let total = 0;
  for await (const block of blocks) {
    if (total + block.length > out.length) {
      const grown = new Float32Array(Math.max(total + block.length, Math.ceil(out.length * 1.5)));
      grown.set(out.subarray(0, total));
      out = grown;
    }
    out.set(block, total);
    total += block.length;
  }
  return total === out.length ? out : out.subarray(0, total);
}

/** Samples to reserve for a decode: the container's duration and a second more, else a minute. */
export function initialCapacity(hintSeconds: number | null): number {
  return hintSeconds !== null && Number.isFinite(hintSeconds) && hintSeconds > 0 ? Math.ceil(hintSeconds * SAMPLE_RATE) + SAMPLE_RATE : 60 * SAMPLE_RATE;
}

/**
 * The container's idea of the first audio stream's duration in seconds, or null when it has none or
 * does not say. Only a hint (for pre-sizing buffers and progress): decoding is the truth.
 */
export async function probeAudioDuration(path: string, tools: MediaTools, signal?: AbortSignal): Promise<number | null> {
  try {
    const probe = await probeMedia(tools, path, signal);
    return probe.hasAudio ? probe.duration : null;
  } catch {
    return null;
  }
}
