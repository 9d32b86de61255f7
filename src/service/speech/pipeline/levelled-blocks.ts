import { gainToPeak, peakAmplitude, scaledCopy } from '../../dsp/levels';
import { SAMPLE_RATE, type Span } from '../types';
import type { StreamingVoiceActivityDetector } from '../vad/silero';

/** Audio held back at the start so that the first gain comes from this much of the recording (or all of it). */
export const LEVEL_LOOKAHEAD_SECONDS = 30;

/**
 * The recording's blocks at a fixed peak (NORMALISED_PEAK), so that what the VAD finds and the recognizer
 * hears does not depend on the level it was recorded at: Silero VAD loses distant or noisy speech as the
 * level drops (a meeting excerpt 25 dB down keeps 0.5 of its 14 s of speech), and PocketSphinx's front end
 * is not level-invariant either (bench/asr/README.md, "Recording level"). The first LEVEL_LOOKAHEAD_SECONDS
 * are held back and scaled by their own peak (the whole recording's, for shorter ones); after that the gain
 * follows the loudest sample so far, so it only ever falls and nothing goes past the target. The gain depends
 * only on the audio before and in each block, so decoding the same file again gives the same blocks (a
 * resumed run relies on that). Block boundaries are kept.
 */
export async function* levelledBlocks(
  blocks: AsyncIterable<Float32Array>,
  lookaheadSeconds = LEVEL_LOOKAHEAD_SECONDS,
): AsyncGenerator<Float32Array> {
  const lookahead = Math.round(lookaheadSeconds * SAMPLE_RATE);
  let peak = 0;
  let held: Float32Array[] | null = [];
  let heldSamples = 0;
  for await (const block of blocks) {
    peak = Math.max(peak, peakAmplitude(block));
    if (!held) {
      yield scaledCopy(block, gainToPeak(peak));
      continue;
    }
    held.push(block);
    heldSamples += block.length;
    if (heldSamples < lookahead) continue;
    const gain = gainToPeak(peak);
    const release = held;
    held = null;
    for (const b of release) yield scaledCopy(b, gain);
  }
  if (held) {
    const gain = gainToPeak(peak);
    for (const b of held) yield scaledCopy(b, gain);
  }
}

/** A whole recording in the pipeline's one-second blocks (views, no copies). */
async function* seconds(pcm: Float32Array): AsyncGenerator<Float32Array> {
  for (let i = 0; i < pcm.length; i += SAMPLE_RATE)
    yield pcm.subarray(i, Math.min(pcm.length, i + SAMPLE_RATE));
}

/**
 * A whole recording levelled as the pipeline levels it, written into `out` (by default a new array; the
 * recording itself when the caller owns it and needs no second full-length copy: each second is read before
 * it is written).
 */
export async function levelledRecording(
  pcm: Float32Array,
  out: Float32Array = new Float32Array(pcm.length),
): Promise<Float32Array> {
  let at = 0;
  for await (const block of levelledBlocks(seconds(pcm))) {
    out.set(block, at);
    at += block.length;
  }
  return out;
}

/** A whole recording's speech spans as the pipeline's VAD hears them: levelled and fed a second at a time, no full-length copy. */
export async function levelledSpeech(
  vad: StreamingVoiceActivityDetector,
  pcm: Float32Array,
): Promise<Span[]> {
  const stream = vad.stream();
  const spans: Span[] = [];
  for await (const block of levelledBlocks(seconds(pcm))) spans.push(...(await stream.push(block)));
  spans.push(...(await stream.finish()));
  return spans;
}
