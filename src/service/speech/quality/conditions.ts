import type { Condition } from '../../../shared/schemas/analysis';
import type { Span } from '../types';
import { type HumReading, detectHum } from './hum';
import { type LineMeasures, THRESHOLDS, measureLine } from './line-quality';
import { type NoiseProfile, noiseProfile } from './noise-profile';
import { clip, formatRanges, mergeSpans, round } from './spans';

/**
 * Recording conditions: what is wrong across the recording and where. Each condition names its measure,
 * the value, the threshold and the time ranges in `evidence`, and lists the ranges.
 */

/** Hum is looked for in blocks of this many seconds over the whole recording (pauses included). */
const HUM_BLOCK_SECONDS = 4;
/** Ranges closer than this (seconds) are reported as one. */
const JOIN_SECONDS = 1;
/** off_mic: a line whose decay rate is at most this share of the recording's median line. */
const OFF_MIC_DECAY_SHARE = 0.6;
/** off_mic by level and brightness: this far below the recording's median line level and brightness. */
const OFF_MIC_LEVEL_DB = 10;
const OFF_MIC_BRIGHTNESS_DB = 6;
/** Lines needed before a line can stand out from "the recording's usual". */
const OFF_MIC_MIN_LINES = 3;

export interface ConditionOptions {
  /** The recording's noise profile, when already computed. */
  noise?: NoiseProfile;
  /** `measureLine` of each line (same order as `lines`), when already computed. */
  measures?: LineMeasures[];
}

export function detectConditions(
  pcm: Float32Array,
  sampleRate: number,
  speech: Span[],
  lines: Span[],
  options: ConditionOptions = {},
): Condition[] {
  const noise = options.noise ?? noiseProfile(pcm, sampleRate, speech);
  const measures =
    options.measures ?? lines.map((line) => measureLine(pcm, sampleRate, line, clip(speech, line), noise));
  const conditions: Condition[] = [];
  const push = (type: string, severity: number, evidence: string, ranges: Span[]): void => {
    if (ranges.length === 0) return;
    conditions.push({
      type,
      severity: round(Math.min(1, Math.max(0, severity)), 2),
      evidence,
      ranges: ranges.map(roundSpan),
      source: 'measured',
    });
  };
  const speechLevels = measures.map((m) => m.speech_db).filter((v): v is number => v !== null);
  const speechDb = speechLevels.length ? median(speechLevels) : null;

  // Hum: blocks over the whole recording, reported from 50 dB below the speech (fainter hum is inaudible
  // under it, and is found in clean studio recordings).
  const hum = humBlocks(pcm, sampleRate).filter(
    (b) => speechDb === null || b.reading.level_db - speechDb >= THRESHOLDS.humLowDb,
  );
  for (const mains of [50, 60] as const) {
    const blocks = hum.filter((b) => b.reading.mains_hz === mains);
    if (!blocks.length) continue;
    const level = Math.max(...blocks.map((b) => b.reading.level_db));
    const relative = speechDb === null ? null : level - speechDb;
    const ranges = mergeSpans(
      blocks.map((b) => b.span),
      JOIN_SECONDS,
    );
    const lineHz = [...new Set(blocks.flatMap((b) => b.reading.lines.map((l) => Math.round(l.hz))))].sort(
      (a, b) => a - b,
    );
    push(
      'hum',
      relative === null
        ? 0.5
        : 0.1 + (0.9 * (relative - THRESHOLDS.humLowDb)) / (THRESHOLDS.humHighDb - THRESHOLDS.humLowDb),
      `${mains} Hz mains hum: level ${level.toFixed(1)} dBFS${relative === null ? '' : ` (${(-relative).toFixed(1)} dB below the speech)`}, lines at ${lineHz.join(', ')} Hz standing ≥ 12 dB above their neighbourhood (thresholds: 12 dB above the neighbourhood, at most ${-THRESHOLDS.humLowDb} dB below the speech), in ${formatRanges(ranges)}`,
      ranges,
    );
  }

  // Clipping: the samples themselves.
  const clipped = clippedRanges(pcm, sampleRate, noise);
  if (clipped.samples > 0) {
    const ratio = clipped.samples / pcm.length;
    const levels = [noise.clip.positive, noise.clip.negative]
      .filter((v): v is number => v !== null)
      .map((v) => v.toFixed(3));
    push(
      'clipping',
      Math.max(0.05, (Math.log10(ratio) + 5) / 4),
      `clipping ratio ${(ratio * 100).toPrecision(2)}% of the recording (${clipped.samples} samples at the clip level ${levels.join(' / ')}; threshold: any) in ${formatRanges(clipped.ranges)}`,
      clipped.ranges,
    );
  }

  const byLine = (test: (m: LineMeasures) => boolean): LineMeasures[] => measures.filter(test);
  const spansOf = (ms: LineMeasures[]): Span[] =>
    mergeSpans(
      ms.map((m) => m.span),
      JOIN_SECONDS,
    );

  const noisy = byLine((m) => m.snr_db !== null && m.snr_db < THRESHOLDS.noiseSnrDb);
  if (noisy.length) {
    const worst = noisy.reduce((a, b) => (b.snr_db! < a.snr_db! ? b : a));
    const ranges = spansOf(noisy);
    push(
      'noise',
      0.1 + (0.9 * (THRESHOLDS.noiseSnrDb - worst.snr_db!)) / THRESHOLDS.noiseSnrDb,
      `SNR ${median(noisy.map((m) => m.snr_db!)).toFixed(1)} dB median, ${worst.snr_db!.toFixed(1)} dB lowest over ${noisy.length} line(s) (threshold ${THRESHOLDS.noiseSnrDb} dB); noise floor ${worst.noise_db?.toFixed(1)} dBFS around the worst (recording ${noise.noise_db?.toFixed(1)} dBFS); in ${formatRanges(ranges)}`,
      ranges,
    );
  }

  const windy = byLine((m) => m.wind_index >= THRESHOLDS.windIndex);
  if (windy.length) {
    const top = Math.max(...windy.map((m) => m.wind_index));
    const ranges = spansOf(windy);
    push(
      'wind',
      0.1 + (0.9 * (top - THRESHOLDS.windIndex)) / (0.6 - THRESHOLDS.windIndex),
      `wind index up to ${top.toFixed(2)} (share of a line in gusty 20–80 Hz noise; threshold ${THRESHOLDS.windIndex}) in ${formatRanges(ranges)}`,
      ranges,
    );
  }

  const rumbly = byLine(
    (m) => m.low_frequency_share_db !== null && m.low_frequency_share_db > THRESHOLDS.lowFrequencyShareDb,
  );
  if (rumbly.length) {
    const top = Math.max(...rumbly.map((m) => m.low_frequency_share_db!));
    const ranges = spansOf(rumbly);
    push(
      'low_frequency',
      0.1 + (0.9 * (top - THRESHOLDS.lowFrequencyShareDb)) / -THRESHOLDS.lowFrequencyShareDb,
      `20–80 Hz share up to ${top.toFixed(1)} dB of the speech power (rumble, handling; threshold ${THRESHOLDS.lowFrequencyShareDb} dB) in ${formatRanges(ranges)}`,
      ranges,
    );
  }

  const reverberant = byLine((m) => m.decay_rate_db_s !== null && m.decay_rate_db_s < THRESHOLDS.decayFar);
  if (reverberant.length) {
    const rate = median(reverberant.map((m) => m.decay_rate_db_s!));
    const ranges = spansOf(reverberant);
    push(
      'reverb',
      0.1 + (0.9 * (THRESHOLDS.decayFar - rate)) / (THRESHOLDS.decayFar - 40),
      `decay rate at speech offsets ${rate.toFixed(0)} dB/s median over ${reverberant.length} line(s) (reverberant below ${THRESHOLDS.decayFar} dB/s; dry close speech decays at 130–400 dB/s) in ${formatRanges(ranges)}`,
      ranges,
    );
  }

  const offMic = offMicLines(measures);
  if (offMic.length) {
    const ranges = spansOf(offMic.map((o) => o.line));
    push(
      'off_mic',
      Math.max(...offMic.map((o) => o.severity)),
      `${offMic.length} line(s) farther from the mic than the recording's usual: ${offMic
        .slice(0, 3)
        .map((o) => o.why)
        .join('; ')}; in ${formatRanges(ranges)}`,
      ranges,
    );
  }
  return conditions;
}

/**
 * Lines that sound farther away than the recording's other lines: their speech offsets decay at most 0.6×
 * as fast as the median line's (more room, less direct sound), or they are both ≥ 10 dB quieter and ≥ 6 dB
 * duller (4–8 kHz share) than the median line (the talker turned away or stepped back).
 */
function offMicLines(measures: LineMeasures[]): { line: LineMeasures; severity: number; why: string }[] {
  const decays = measures.map((m) => m.decay_rate_db_s).filter((v): v is number => v !== null);
  const levels = measures.map((m) => m.speech_db).filter((v): v is number => v !== null);
  const brightness = measures.map((m) => m.high_frequency_share_db).filter((v): v is number => v !== null);
  if (measures.length < OFF_MIC_MIN_LINES) return [];
  const decayMedian = decays.length >= OFF_MIC_MIN_LINES ? median(decays) : null;
  const levelMedian = levels.length >= OFF_MIC_MIN_LINES ? median(levels) : null;
  const brightMedian = brightness.length >= OFF_MIC_MIN_LINES ? median(brightness) : null;
  const out: { line: LineMeasures; severity: number; why: string }[] = [];
  for (const m of measures) {
    const at = `${formatRanges([m.span])}`;
    if (
      decayMedian !== null &&
      m.decay_rate_db_s !== null &&
      m.decay_rate_db_s <= OFF_MIC_DECAY_SHARE * decayMedian &&
      m.decay_rate_db_s < THRESHOLDS.decayNear
    ) {
      const share = m.decay_rate_db_s / decayMedian;
      out.push({
        line: m,
        severity: 0.3 + 0.7 * Math.min(1, (OFF_MIC_DECAY_SHARE - share) / 0.4),
        why: `${at} decay rate ${m.decay_rate_db_s.toFixed(0)} dB/s against the recording's median ${decayMedian.toFixed(0)} dB/s (threshold ${OFF_MIC_DECAY_SHARE}×)`,
      });
      continue;
    }
    if (
      levelMedian !== null &&
      brightMedian !== null &&
      m.speech_db !== null &&
      m.high_frequency_share_db !== null
    ) {
      const quieter = levelMedian - m.speech_db;
      const duller = brightMedian - m.high_frequency_share_db;
      if (quieter >= OFF_MIC_LEVEL_DB && duller >= OFF_MIC_BRIGHTNESS_DB) {
        out.push({
          line: m,
          severity: 0.3 + 0.7 * Math.min(1, (quieter - OFF_MIC_LEVEL_DB) / 10),
          why: `${at} ${quieter.toFixed(1)} dB quieter and ${duller.toFixed(1)} dB duller (4–8 kHz share) than the median line (thresholds ${OFF_MIC_LEVEL_DB} / ${OFF_MIC_BRIGHTNESS_DB} dB)`,
        });
      }
    }
  }
  return out;
}

function humBlocks(pcm: Float32Array, sampleRate: number): { span: Span; reading: HumReading }[] {
  const block = Math.round(HUM_BLOCK_SECONDS * sampleRate);
  const out: { span: Span; reading: HumReading }[] = [];
  for (let from = 0; from < pcm.length; from += block) {
    // A short last block joins the one before it.
    const to = pcm.length - (from + block) < block / 2 ? pcm.length : from + block;
    const reading = detectHum(pcm, sampleRate, from, to);
    if (reading) out.push({ span: { start: from / sampleRate, end: to / sampleRate }, reading });
    if (to === pcm.length) break;
  }
  return out;
}

function clippedRanges(
  pcm: Float32Array,
  sampleRate: number,
  noise: NoiseProfile,
): { samples: number; ranges: Span[] } {
  const pos = noise.clip.positive ?? Infinity;
  const neg = noise.clip.negative ?? -Infinity;
  if (pos === Infinity && neg === -Infinity) return { samples: 0, ranges: [] };
  const spans: Span[] = [];
  let samples = 0;
  for (let i = 0; i < pcm.length; i++) {
    const v = pcm[i]!;
    if (v < pos && v > neg) continue;
    samples++;
    const t = i / sampleRate;
    const last = spans.at(-1);
    if (last && t - last.end <= JOIN_SECONDS) last.end = (i + 1) / sampleRate;
    else spans.push({ start: t, end: (i + 1) / sampleRate });
  }
  return { samples, ranges: spans };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function roundSpan(s: Span): Span {
  return { start: round(s.start, 2), end: round(s.end, 2) };
}
