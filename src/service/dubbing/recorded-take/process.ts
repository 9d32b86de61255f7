/**
 * What a line recorded from the microphone becomes before it goes into its cue: the count-in is trimmed off,
 * the rest kept at the actor's timing from the line's start (no stretch, no silence trimming inside: the
 * actor performed against the guide), cut at the slot's end with a 10 ms fade, and brought to the original
 * line's loudness (ITU-R BS.1770 integrated loudness, dsp/loudness.ts, the measure the revoice matches),
 * with peaks kept at or under −0.1 dBFS.
 */
import { integratedLoudness } from '../../dsp/loudness';

/** Loudness when the original line has none to match (EBU R128's programme target), as for a revoice. */
export const RECORDED_FALLBACK_LUFS = -23;
/** Highest sample peak a recorded line may reach (−0.1 dBFS), as for a revoice. */
export const RECORDED_PEAK_LIMIT = 10 ** (-0.1 / 20);
const GAIN_RANGE_DB = 40;
const CUT_FADE_SECONDS = 0.01;

export type RecordedTakeFlag = 'cut' | 'short' | 'silent' | 'no_reference_loudness' | 'gain_limited';

export interface RecordedTakeInput {
  /** The recording, mono, at the dub's sample rate; it starts `preRoll` seconds before the line. */
  samples: Float32Array;
  sampleRate: number;
  /** Seconds of count-in recorded before the line's start. */
  preRoll: number;
  /** Frames from the line's start to its slot's end: what the take may fill. */
  slotFrames: number;
  /** The original line as the dub was uploaded (interleaved), the loudness to match. */
  reference: Float32Array;
  channels: number;
}

export interface RecordedTake {
  /** The take over the slot, interleaved at the dub's channels (the same signal on each), `slotFrames` long. */
  samples: Float32Array;
  gainDb: number;
  referenceLufs: number | null;
  resultLufs: number | null;
  flags: RecordedTakeFlag[];
}

function peak(samples: Float32Array): number {
  let max = 0;
  for (let i = 0; i < samples.length; i++) max = Math.max(max, Math.abs(samples[i]!));
  return max;
}

/** The recording from the line's start, `slotFrames` long: cut (with a fade) or padded with silence. */
export function trimRecording(samples: Float32Array, sampleRate: number, preRoll: number, slotFrames: number): { samples: Float32Array; flags: RecordedTakeFlag[] } {
  const from = Math.min(samples.length, Math.round(preRoll * sampleRate));
  const body = samples.subarray(from);
  const out = new Float32Array(slotFrames);
  out.set(body.subarray(0, slotFrames));
  const flags: RecordedTakeFlag[] = [];
  if (body.length > slotFrames) {
    flags.push('cut');
    const fade = Math.min(slotFrames, Math.round(CUT_FADE_SECONDS * sampleRate));
    for (let i = 0; i < fade; i++) out[slotFrames - 1 - i]! *= (i + 0.5) / fade;
  } else if (body.length < slotFrames) flags.push('short');
  return { samples: out, flags };
}

export function processRecordedTake(input: RecordedTakeInput): RecordedTake {
  const { sampleRate: rate, channels } = input;
  const trimmed = trimRecording(input.samples, rate, input.preRoll, input.slotFrames);
  const flags = [...trimmed.flags];
  const placed = new Float32Array(input.slotFrames * channels);
  for (let f = 0; f < input.slotFrames; f++) for (let c = 0; c < channels; c++) placed[f * channels + c] = trimmed.samples[f]!;
  const measured = integratedLoudness(input.reference, channels, rate);
  const referenceLufs = Number.isFinite(measured) ? measured : null;
  if (referenceLufs === null) flags.push('no_reference_loudness');
  const own = integratedLoudness(placed, channels, rate);
  if (!Number.isFinite(own)) {
    // Nothing above the gate to measure: kept as recorded.
    flags.push('silent');
    return { samples: placed, gainDb: 0, referenceLufs, resultLufs: null, flags };
  }
  let gainDb = Math.max(-GAIN_RANGE_DB, Math.min(GAIN_RANGE_DB, (referenceLufs ?? RECORDED_FALLBACK_LUFS) - own));
  // Peaks over −0.1 dBFS: the gain steps down by 0.25 dB until they are not.
  if (peak(placed) * 10 ** (gainDb / 20) > RECORDED_PEAK_LIMIT) {
    flags.push('gain_limited');
    while (peak(placed) * 10 ** (gainDb / 20) > RECORDED_PEAK_LIMIT && gainDb > -GAIN_RANGE_DB) gainDb -= 0.25;
  }
  const gain = 10 ** (gainDb / 20);
  const samples = placed.map((x) => x * gain);
  const result = integratedLoudness(samples, channels, rate);
  return { samples, gainDb, referenceLufs, resultLufs: Number.isFinite(result) ? result : null, flags };
}
