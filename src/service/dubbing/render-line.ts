import type { LineRender, RevoiceFlag } from '../../shared/schemas';
import type { MediaTools } from '../media/tools';
import { readFrames, type WavSource } from '../media/wav';
import { resampleMono } from '../media/resample';
import { integratedLoudness, mixLoudness } from '../dsp/loudness';
import { leadingQuiet, loudestFramePower, soundingSpan } from '../dsp/trim-silence';
import { wsolaStretch } from '../dsp/wsola';
import { DEFAULT_FIT_LIMITS, fitToSlot, outerFades } from '../speech/synthesis/slot-fit';
import type { VoiceRegistry } from '../speech/synthesis/voice-registry';
import type { SpokenWord } from '../speech/synthesis/voice';
import type { Aligner } from '../speech/types';
import { SAMPLE_RATE } from '../speech/types';
import { JobFailure } from '../jobs/job-runner';
import { DEFAULT_RUBBERBAND } from './guide/rubberband';
import { guideReading, type GuidedReading } from './guide/guide-reading';
import type { PlannedLine } from '../storage/dub-store';

/** Loudness a line is brought to when the original line has none to match (EBU R128's programme target). */
export const FALLBACK_LOUDNESS = -23;
/** Highest sample peak a revoiced line may reach (−0.1 dBFS). */
export const PEAK_LIMIT = 10 ** (-0.1 / 20);
const GAIN_RANGE_DB = 40;

export type { WavSource } from '../media/wav';

export interface RenderInputs {
  voices: VoiceRegistry;
  tools: MediaTools;
  /** Forced alignment for word timings, or null when no aligner is installed. */
  aligner: Aligner | null;
  /** The dub as uploaded (revision 1): the original lines' loudness is measured there. */
  source: WavSource;
  background: WavSource | null;
  /** Rubber Band's command-line program, for lines guided by the original (Debian's `rubberband-cli`). */
  rubberband?: string;
}

export type LineRenderResult = Omit<LineRender, 'revision' | 'revoice_id'>;

export interface RenderedLine {
  render: LineRenderResult;
  /** The new signal over the region (interleaved, the dub's channels), before the edge crossfades. */
  patch: Float32Array;
  /** Frames of crossfade at the region's start and end (the rest of the region is the slot). */
  fadeIn: number;
  fadeOut: number;
}

const toFrame = (seconds: number, rate: number) => Math.round(seconds * rate);

/**
 * Word times of the synthesized audio on the dub's timeline: the engine's silence trimmed from the front
 * (`trimmed` seconds), the reading stretched by `stretch`, and placed at `speechStart`.
 */
export function readingWords(words: SpokenWord[], trimmed: number, stretch: number, speechStart: number): SpokenWord[] {
  const at = (t: number) => speechStart + Math.max(0, t - trimmed) * stretch;
  return words.map((w) => ({ word: w.word, start: at(w.start), end: at(w.end) }));
}
const round6 = (x: number) => Math.round(x * 1e6) / 1e6;

function mix(background: Float32Array | null, voice: Float32Array, gain: number): Float32Array {
  const out = new Float32Array(voice.length);
  for (let i = 0; i < voice.length; i++) out[i] = (background ? background[i]! : 0) + gain * voice[i]!;
  return out;
}

function peak(samples: Float32Array): number {
  let max = 0;
  for (let i = 0; i < samples.length; i++) max = Math.max(max, Math.abs(samples[i]!));
  return max;
}

/** Quiet is 40 dB under the original line's loudest 10 ms, as for trimming synthesized speech. */
const QUIET_DB = -40;

/** The dialogue as uploaded (the upload minus the background stem when there is one), interleaved. */
function dialogueFrames(inputs: RenderInputs, from: number, count: number): Float32Array {
  const mix = readFrames(inputs.source.fd, inputs.source.layout, from, count);
  if (!inputs.background) return mix;
  const stem = readFrames(inputs.background.fd, inputs.background.layout, from, count);
  return mix.map((x, i) => x - stem[i]!);
}

function downmix(interleaved: Float32Array, channels: number): Float32Array {
  if (channels === 1) return interleaved;
  const out = new Float32Array(Math.floor(interleaved.length / channels));
  for (let f = 0; f < out.length; f++) {
    let sum = 0;
    for (let c = 0; c < channels; c++) sum += interleaved[f * channels + c]!;
    out[f] = sum / channels;
  }
  return out;
}

/** Seconds of quiet in the dialogue after the line, up to the next line's start. */
function quietAfter(inputs: RenderInputs, line: PlannedLine, rate: number, channels: number): number {
  const dialogue = (from: number, count: number) => dialogueFrames(inputs, from, count);
  const lineStart = toFrame(line.originalStart, rate);
  const reference = loudestFramePower(dialogue(lineStart, toFrame(line.originalEnd, rate) - lineStart), channels, rate);
  const from = toFrame(line.end, rate);
  const gap = Math.max(0, toFrame(line.nextStart, rate) - from);
  if (gap === 0 || reference === 0) return 0;
  return leadingQuiet(dialogue(from, gap), channels, rate, reference * 10 ** (QUIET_DB / 10));
}

/**
 * Voices one line for the dub: synthesize, trim the engine's silence, fit into the slot (stretch, borrow,
 * else flag and cut), resample to the dub's rate, match the original line's loudness (over the background
 * stem when there is one), keep peaks under −0.1 dBFS, and align the new words. Returns the new signal
 * over the region the revision will rewrite: the slot plus a crossfade on each side.
 */
export async function renderLine(inputs: RenderInputs, line: PlannedLine, signal?: AbortSignal): Promise<RenderedLine> {
  const { layout } = inputs.source;
  const rate = layout.sampleRate;
  const channels = layout.channels;
  const duration = layout.frames / rate;
  const flags: RevoiceFlag[] = [];

  const found = inputs.voices.lookupRef(line.voice);
  if (!found.ok) throw new JobFailure(`Line ${line.lineId}: ${found.message}`);
  const spoken = await inputs.voices.speak(found.spec, found.voice.id, line.text, { signal });
  const span = soundingSpan(spoken.samples, spoken.sampleRate);
  const reading = spoken.samples.slice(span.start, span.end);
  if (reading.length === 0) throw new JobFailure(`Line ${line.lineId}: the voice ${line.voice} produced no sound for this text.`);
  const readingSeconds = reading.length / spoken.sampleRate;

  // Silence to borrow must be silence: only the quiet stretch after the line (in the dialogue, i.e. the
  // upload minus the background stem when there is one) counts, whatever the next line's start says.
  const borrowLimit = line.end + quietAfter(inputs, line, rate, channels);
  // A line's own speed folds into the one WSOLA stretch (pitch kept) instead of the fill-the-slot factor.
  const nextLimit = Math.min(line.nextStart, borrowLimit + DEFAULT_FIT_LIMITS.borrowMargin);
  let guided: GuidedReading | null = null;
  if (line.guide === 'original') {
    // Follows the original actor: word timings and pitch of the line as uploaded (guide/guide-reading.ts).
    const from = toFrame(line.originalStart, rate);
    const original = downmix(dialogueFrames(inputs, from, toFrame(line.originalEnd, rate) - from), channels);
    const request = { aligner: inputs.aligner, tools: inputs.tools, rubberband: inputs.rubberband ?? DEFAULT_RUBBERBAND, reading, readingRate: spoken.sampleRate, text: line.text };
    guided = await guideReading({ ...request, original, originalRate: rate, originalText: line.originalText ?? line.text, line, nextLimit }, signal);
    if (!guided) flags.push('no_guide');
    else if (!guided.wordByWord) flags.push('guide_by_span');
  }
  const fit = guided ? guided.fit : fitToSlot(readingSeconds, { start: line.start, end: line.end }, nextLimit, DEFAULT_FIT_LIMITS, line.speed ?? null);
  flags.push(...fit.flags);
  const whole = guided ? guided.samples : fit.stretch === 1 ? reading : wsolaStretch(reading, spoken.sampleRate, fit.stretch);
  let stretched = whole;
  const room = Math.round((fit.slot.end - fit.slot.start) * spoken.sampleRate);
  if (stretched.length > room) {
    // Does not fit: keep what does, with a 10 ms fade so the cut does not click.
    stretched = stretched.slice(0, room);
    const fade = Math.min(room, Math.round(0.01 * spoken.sampleRate));
    for (let i = 0; i < fade; i++) stretched[room - 1 - i]! *= (i + 0.5) / fade;
  }
  const voiceAtRate = await resampleMono(inputs.tools, stretched, spoken.sampleRate, rate, signal);

  const fades = outerFades(fit.slot, line.previousEnd, line.nextStart, duration);
  const slotStart = toFrame(fit.slot.start, rate);
  const slotEnd = Math.min(layout.frames, toFrame(fit.slot.end, rate));
  const startFrame = Math.max(0, toFrame(fit.slot.start - fades.before, rate));
  const endFrame = Math.min(layout.frames, Math.max(slotEnd, toFrame(fit.slot.end + fades.after, rate)));
  const frames = endFrame - startFrame;
  const voiceFrames = Math.min(voiceAtRate.length, slotEnd - slotStart);
  const voice = new Float32Array(frames * channels);
  for (let f = 0; f < voiceFrames; f++) {
    for (let c = 0; c < channels; c++) voice[(slotStart - startFrame + f) * channels + c] = voiceAtRate[f]!;
  }
  const background = inputs.background ? readFrames(inputs.background.fd, inputs.background.layout, startFrame, frames) : null;

  // Loudness: the original line as uploaded, against the new line over the slot.
  const original = readFrames(inputs.source.fd, layout, toFrame(line.originalStart, rate), toFrame(line.originalEnd, rate) - toFrame(line.originalStart, rate));
  const measured = integratedLoudness(original, channels, rate);
  const reference = Number.isFinite(measured) ? measured : null;
  if (reference === null) flags.push('no_reference_loudness');
  const target = reference ?? FALLBACK_LOUDNESS;
  const inner = (x: Float32Array) => x.subarray((slotStart - startFrame) * channels, (slotEnd - startFrame) * channels);
  const voiceAlone = integratedLoudness(inner(voice), channels, rate);
  let gainDb = target - voiceAlone;
  if (background) {
    // Loudness of background + voice rises with the voice's gain: bisect for the gain that meets the target
    // (when the background alone is already as loud, match the voice alone instead).
    const loudnessAt = mixLoudness(inner(background), inner(voice), channels, rate);
    if (loudnessAt(10 ** (-GAIN_RANGE_DB / 20)) < target) {
      let low = -GAIN_RANGE_DB;
      let high = GAIN_RANGE_DB;
      for (let i = 0; i < 40; i++) {
        const mid = (low + high) / 2;
        if (loudnessAt(10 ** (mid / 20)) < target) low = mid;
        else high = mid;
      }
      gainDb = (low + high) / 2;
    }
  }
  gainDb = Math.max(-GAIN_RANGE_DB, Math.min(GAIN_RANGE_DB, gainDb));
  let patch = mix(background, voice, 10 ** (gainDb / 20));
  if (peak(patch) > PEAK_LIMIT) {
    flags.push('gain_limited');
    while (peak(patch) > PEAK_LIMIT && gainDb > -GAIN_RANGE_DB) {
      gainDb -= 0.25;
      patch = mix(background, voice, 10 ** (gainDb / 20));
    }
  }
  const result = integratedLoudness(inner(patch), channels, rate);

  const speechStart = slotStart / rate;
  let words: LineRender['words'] = [];
  // The engine's own word times (festival's voices), moved as the reading was: trimmed, stretched, placed. A guided
  // reading was warped word by word, not stretched evenly, so its words come from aligning what was placed.
  const engineWords = spoken.words?.length && !guided ? readingWords(spoken.words, span.start / spoken.sampleRate, whole.length / reading.length, speechStart) : null;
  try {
    if (engineWords) {
      words = engineWords.filter((w) => w.start < fit.slot.end).map((w) => ({ word: w.word, start: round6(w.start), end: round6(Math.min(w.end, fit.slot.end)) }));
    } else {
      if (!inputs.aligner) throw new Error('no aligner');
      // Aligned on the whole reading, so the words of a line that does not fit keep their true times; the
      // ones cut at the slot end are left out.
      const at16k = await resampleMono(inputs.tools, whole, spoken.sampleRate, SAMPLE_RATE, signal);
      words = (await inputs.aligner.align(at16k, line.text, { offset: speechStart, signal }))
        .filter((w) => w.start < fit.slot.end)
        .map((w) => ({ word: w.word, start: round6(w.start), end: round6(Math.min(w.end, fit.slot.end)) }));
    }
  } catch (error) {
    if (signal?.aborted) throw error;
    flags.push('no_word_timings');
  }

  return {
    patch,
    fadeIn: slotStart - startFrame,
    fadeOut: endFrame - slotEnd,
    render: {
      text: line.text,
      voice: line.voice,
      line_start: line.start,
      line_end: line.end,
      slot: { start: round6(fit.slot.start), end: round6(fit.slot.end) },
      region: { start: startFrame / rate, end: endFrame / rate, start_frame: startFrame, end_frame: endFrame },
      speech: { start: round6(speechStart), end: round6((slotStart + voiceFrames) / rate) },
      synthesized_duration: round6(readingSeconds),
      stretch: round6(fit.stretch),
      gain_db: Math.round(gainDb * 100) / 100,
      loudness: { reference_lufs: reference === null ? null : Math.round(reference * 100) / 100, result_lufs: Number.isFinite(result) ? Math.round(result * 100) / 100 : null },
      overflow: round6(fit.overflow),
      flags,
      words,
      word_timings: words.length ? (engineWords ? 'engine' : 'alignment') : null,
      speed: line.speed ?? null,
      guide: line.guide ?? null,
      ...(guided ? { pitch_shift: Math.round(guided.semitones * 100) / 100 } : {}),
    },
  };
}
