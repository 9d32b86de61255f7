/**
 * Generated transcripts (seeded, so reproducible) with awkward text, at every timebase: every export must
 * read back with the independent readers and keep every mark on the right frame.
 */
import { parseSync } from 'subtitle';
import { describe, expect, it } from 'vitest';
import {
  FRAME_RATES,
  formatTimecode,
  framesPerDay,
  secondsToFrames,
  secondsToTimecode,
  supportsDropFrame,
  timecodeToSeconds,
} from '../../shared/timecode';
import { collectMarks } from './marks';
import { truncate } from './text';
import { renderExport } from './index';
import { parseCsv } from './testing/csv';
import { parseEdl } from './testing/edl';
import { findAll, parseXml } from './testing/xml';
import type { ExportInput } from './types';

function prng(seed: number): () => number {
  // mulberry32: small, fast, good enough to vary test data.
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = [
  'hello',
  'world,',
  '"quoted"',
  "it's",
  '<tag>',
  'a & b',
  '-->',
  '=1+2',
  'naïve',
  '日本語',
  '🙂',
  'line\nbreak',
  'tab\there',
  '\u0007bell',
  'x'.repeat(50),
  'end.',
];

function makeInput(
  random: () => number,
  rate: (typeof FRAME_RATES)[number],
  dropFrame: boolean,
): ExportInput {
  const speakers = ['S1', 'S2', 'S3'];
  const segments = [];
  let t = random() * 2;
  for (let id = 0; id < 12; id++) {
    const words = Array.from(
      { length: 1 + Math.floor(random() * 30) },
      () => PIECES[Math.floor(random() * PIECES.length)]!,
    );
    const length = 0.3 + random() * 8;
    segments.push({
      id,
      speaker: speakers[Math.floor(random() * 3)]!,
      start: t,
      end: t + length,
      text: words.join(' '),
    });
    t += length + random();
  }
  const day = framesPerDay({ frameRate: rate, dropFrame });
  return {
    session: { id: 'ses', fileName: 'weird, "name" & <file>.wav', duration: t },
    transcript: { speakers, segments },
    media: {
      frame_rate: rate,
      drop_frame: dropFrame,
      // Starts anywhere in the day, including just before midnight so marks wrap.
      start_timecode: formatTimecode(Math.floor(random() * day), { frameRate: rate, dropFrame }),
      tape: random() < 0.5 ? null : 'Roll #7 / B-cam',
    },
    markers: [{ start: random() * t, end: t, label: 'applause, "loud"', kind: 'applause' }],
    // A moment of a random type over each of a few lines, with awkward reasons and words.
    moments: segments
      .filter(() => random() < 0.5)
      .map((s, i) => ({
        id: `m-${i}`,
        type: (['select', 'unusable', 'trim'] as const)[Math.floor(random() * 3)]!,
        start: s.start + random() * 0.1,
        end: s.end,
        speaker: s.speaker,
        score: random(),
        reason: PIECES[Math.floor(random() * PIECES.length)]!,
        segment_ids: [s.id],
        text: s.text,
      })),
  };
}

const TIMEBASES = FRAME_RATES.flatMap(
  (rate) =>
    (supportsDropFrame(rate)
      ? [
          [rate, false],
          [rate, true],
        ]
      : [[rate, false]]) as Array<[typeof rate, boolean]>,
);

describe.each(TIMEBASES)('%s fps, drop frame %s', (rate, dropFrame) => {
  it('every format reads back', () => {
    const random = prng(rate.length * 1000 + Number(rate) * 10 + (dropFrame ? 1 : 0));
    for (let round = 0; round < 5; round++) {
      const input = makeInput(random, rate, dropFrame);
      const clock = { frameRate: rate, dropFrame, startTimecode: input.media!.start_timecode };
      const marks = collectMarks(input);

      for (const format of ['srt', 'vtt'] as const) {
        const cues = parseSync(renderExport(format, input).body).filter((n) => n.type === 'cue');
        expect(cues.length).toBeGreaterThanOrEqual(input.transcript.segments.length);
        let last = -1;
        for (const { data } of cues as Array<{ data: { start: number; end: number } }>) {
          expect(data.start).toBeGreaterThanOrEqual(last);
          expect(data.end).toBeGreaterThanOrEqual(data.start);
          last = data.start;
        }
      }

      const edl = parseEdl(renderExport('edl', input).body);
      expect(edl.dropFrame).toBe(dropFrame);
      expect(edl.events[0]!.reel).toMatch(/^[A-Za-z0-9_]{1,8}$/);
      const locators = edl.events[0]!.locators;
      expect(locators).toHaveLength(marks.length);
      locators.forEach((loc, i) => {
        // Locator labels name the frame each mark starts in, across midnight too.
        expect(secondsToFrames(timecodeToSeconds(loc.timecode, clock), rate)).toBe(
          secondsToFrames(marks[i]!.start, rate),
        );
      });

      const doc = parseXml(renderExport('fcpxml', input).body);
      // Trim moments are chapter markers (FCP's orange); the rest are markers.
      const markers = findAll(doc, 'asset-clip')[0]!.children.filter((c) => c.name.endsWith('marker'));
      // Mark text is already clean of control characters, so it survives XML unchanged.
      expect(markers.map((m) => m.attributes.value)).toEqual(marks.map((m) => m.text));

      // The selects EDL: an event per select moment, its source in on the frame the moment starts in.
      const selects = marks.filter((m) => m.kind === 'select');
      const cuts = parseEdl(renderExport('selects_edl', input).body).events;
      expect(cuts).toHaveLength(selects.length);
      cuts.forEach((cut, i) => {
        expect(secondsToFrames(timecodeToSeconds(cut.sourceIn, clock), rate)).toBe(
          secondsToFrames(selects[i]!.start, rate),
        );
        expect(cut.locators[0]!.text).toBe(truncate(selects[i]!.text, 120));
      });

      const [lineHeader, ...lines] = parseCsv(renderExport('analysis_csv', input).body);
      expect(lines).toHaveLength(input.transcript.segments.length);
      for (const line of lines) expect(line).toHaveLength(lineHeader!.length);

      const [header, ...rows] = parseCsv(renderExport('csv', input).body);
      expect(rows).toHaveLength(marks.length);
      rows.forEach((row, i) => {
        expect(row).toHaveLength(header!.length);
        expect(row[6]).toBe(secondsToTimecode(marks[i]!.start, clock));
        expect(row[8]!.replace(/^'(?=[=+\-@])/, '')).toBe(
          marks[i]!.kind === 'segment' ? marks[i]!.text.replace(/^S\d: /, '') : marks[i]!.text,
        );
      });
    }
  });
});
