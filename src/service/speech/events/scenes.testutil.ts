/**
 * Constructed recordings with exact truth for the event and ambience tests and the events benchmark:
 * real speech lines from `../shared/audio/asr` laid on a timeline, with real applause, laughter and music
 * from `../shared/audio/events` mixed in at known times and levels (between lines or under them).
 */
import { join } from 'node:path';
import { audioDir } from '../../../../test/helpers/paths';
import { frameLevels, powerToDb } from '../../dsp/levels';
import { decodeAudioToArray } from '../../media/decode';
import { resolveMediaTools } from '../../media/tools';
import { SAMPLE_RATE, type Span } from '../types';
import type { AudienceEventType } from './classes';

/** Every line is brought to this RMS level over its speech (dBFS), a usual dialogue level. */
export const SPEECH_DB = -23;

export interface SceneLine {
  /** File under `asr/`. */
  file: string;
  speaker: string;
  /** Where the file's first sample goes, seconds. */
  at: number;
}

export interface ScenePlacement {
  type: AudienceEventType;
  /** File under `events/`. */
  file: string;
  /** Excerpt of the file, seconds (default: all of it). */
  from?: number;
  to?: number;
  /** Where the excerpt's first sample goes, seconds. */
  at: number;
  /** RMS level of the sound relative to the speech level, dB. */
  relDb: number;
  /** Where the sound really is inside the excerpt (seconds from the excerpt's start); default all of it. */
  active?: [number, number];
  /** Why the detector misses this placement (measured and documented in README.md), when it does. */
  knownMiss?: string;
}

export interface SceneSpec {
  name: string;
  lines: SceneLine[];
  events: ScenePlacement[];
  /** A bed under the whole scene (file under `events/`, looped), level relative to speech. */
  background?: { file: string; relDb: number };
  /** Seconds of silence after the last sound. */
  tail?: number;
}

export interface TruthEvent extends Span {
  type: AudienceEventType;
  during_speech: boolean;
  /** Who had the floor: the speaker of the last line that started before the sound. */
  speaker: string | null;
  knownMiss?: string;
}

export interface Scene {
  name: string;
  pcm: Float32Array;
  lines: Array<Span & { speaker: string }>;
  speech: Span[];
  truth: TruthEvent[];
  /** The background bed alone (for measured-level checks), when the scene has one. */
  background?: Float32Array;
}

const cache = new Map<string, Promise<Float32Array>>();

/** A shared audio file as 16 kHz mono float32 (decoded once per test process). */
export function loadShared(relative: string): Promise<Float32Array> {
  let pcm = cache.get(relative);
  if (!pcm) {
    pcm = decodeAudioToArray(join(audioDir, relative), resolveMediaTools());
    cache.set(relative, pcm);
  }
  return pcm;
}

/** The stretch of a clip above its loudest 10 ms frame − 40 dB: where the speech of an asr/ file is. */
export function activeExtent(pcm: Float32Array): Span {
  const { db, hop } = frameLevels(pcm, SAMPLE_RATE, 0.01, 0.01);
  const peak = Math.max(...db);
  let first = db.findIndex((v) => v > peak - 40);
  let last = db.length - 1;
  while (last > 0 && db[last]! <= peak - 40) last--;
  if (first < 0) first = 0;
  return { start: first * hop, end: Math.min(pcm.length / SAMPLE_RATE, (last + 1) * hop) };
}

function rmsDb(pcm: Float32Array, from = 0, to = pcm.length): number {
  let sum = 0;
  for (let i = from; i < to; i++) sum += pcm[i]! * pcm[i]!;
  return powerToDb(sum / Math.max(1, to - from));
}

/** Adds `clip × gain` at `at` seconds, with 20 ms raised-cosine fades so an excerpt starts and stops without a click. */
function mixIn(target: Float32Array, clip: Float32Array, at: number, gain: number): void {
  const offset = Math.round(at * SAMPLE_RATE);
  const fade = Math.min(Math.floor(clip.length / 2), Math.round(0.02 * SAMPLE_RATE));
  for (let i = 0; i < clip.length && offset + i < target.length; i++) {
    const edge = Math.min(i, clip.length - 1 - i);
    const w = edge < fade ? 0.5 - 0.5 * Math.cos((Math.PI * edge) / fade) : 1;
    target[offset + i]! += clip[i]! * gain * w;
  }
}

function overlap(a: Span, b: Span): number {
  return Math.max(0, Math.min(a.end, b.end) - Math.max(a.start, b.start));
}

/** Builds the scene: lines at SPEECH_DB, sounds at their relative levels, truth from the placements. */
export async function buildScene(spec: SceneSpec): Promise<Scene> {
  const lines: Scene['lines'] = [];
  const pieces: Array<{ pcm: Float32Array; at: number; gain: number }> = [];
  let end = 0;
  for (const line of spec.lines) {
    const pcm = await loadShared(join('asr', line.file));
    const active = activeExtent(pcm);
    const gain =
      10 **
      ((SPEECH_DB -
        rmsDb(pcm, Math.round(active.start * SAMPLE_RATE), Math.round(active.end * SAMPLE_RATE))) /
        20);
    pieces.push({ pcm, at: line.at, gain });
    lines.push({ start: line.at + active.start, end: line.at + active.end, speaker: line.speaker });
    end = Math.max(end, line.at + pcm.length / SAMPLE_RATE);
  }
  const truth: TruthEvent[] = [];
  for (const event of spec.events) {
    const whole = await loadShared(join('events', event.file));
    const clip = whole.subarray(
      Math.round((event.from ?? 0) * SAMPLE_RATE),
      Math.round((event.to ?? whole.length / SAMPLE_RATE) * SAMPLE_RATE),
    );
    const [a, b] = event.active ?? [0, clip.length / SAMPLE_RATE];
    const gain =
      10 **
      ((SPEECH_DB + event.relDb - rmsDb(clip, Math.round(a * SAMPLE_RATE), Math.round(b * SAMPLE_RATE))) /
        20);
    pieces.push({ pcm: clip, at: event.at, gain });
    const span = { start: event.at + a, end: event.at + b };
    const heard = lines.reduce((s, l) => s + overlap(l, span), 0);
    const floor = lines.filter((l) => l.start <= span.start).sort((x, y) => y.start - x.start)[0];
    truth.push({
      type: event.type,
      ...span,
      during_speech: heard >= Math.min(0.5, 0.25 * (span.end - span.start)),
      speaker: floor?.speaker ?? null,
      ...(event.knownMiss ? { knownMiss: event.knownMiss } : {}),
    });
    end = Math.max(end, event.at + clip.length / SAMPLE_RATE);
  }
  const pcm = new Float32Array(Math.ceil((end + (spec.tail ?? 1)) * SAMPLE_RATE));
  for (const p of pieces) mixIn(pcm, p.pcm, p.at, p.gain);
  let background: Float32Array | undefined;
  if (spec.background) {
    const bed = await loadShared(join('events', spec.background.file));
    background = new Float32Array(pcm.length);
    for (let i = 0; i < background.length; i++) background[i] = bed[i % bed.length]!;
    const gain = 10 ** ((SPEECH_DB + spec.background.relDb - rmsDb(background)) / 20);
    for (let i = 0; i < pcm.length; i++) {
      background[i]! *= gain;
      pcm[i]! += background[i]!;
    }
  }
  return {
    name: spec.name,
    pcm,
    lines,
    speech: lines.map(({ start, end }) => ({ start, end })),
    truth,
    ...(background ? { background } : {}),
  };
}

/** Intersection over union of two spans. */
export function iou(a: Span, b: Span): number {
  const inter = overlap(a, b);
  return inter / (Math.max(a.end, b.end) - Math.min(a.start, b.start));
}
