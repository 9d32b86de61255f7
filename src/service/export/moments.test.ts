/**
 * Moments in the editor exports, read back with the independent readers: EDL locators and FCPXML marker
 * kinds coloured by type, the selects EDL frame-accurate at every timebase (drop frame too), and the
 * analysis CSV's columns.
 */
import { describe, expect, it } from 'vitest';
import {
  FRAME_RATES,
  type FrameRate,
  formatTimecode,
  parseTimecode,
  secondsToFrames,
  secondsToFramesCeil,
  supportsDropFrame,
} from '../../shared/timecode';
import { ANALYSIS_CSV_COLUMNS, numberCell } from './analysis-csv';
import { panel } from './fixtures/panel';
import { renderExport } from './index';
import { momentText } from './marks';
import { parseCsv } from './testing/csv';
import { parseEdl } from './testing/edl';
import { findAll, parseXml } from './testing/xml';
import type { ExportInput, ExportMoment } from './types';

const frames = (label: string, rate: FrameRate, dropFrame: boolean) => {
  const parsed = parseTimecode(label, { frameRate: rate, dropFrame });
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.frames;
};

describe('moments as markers', () => {
  it('EDL: one locator per moment, coloured by type, with the reason and the words', () => {
    const [event] = parseEdl(renderExport('edl', panel).body).events;
    const moments = event!.locators.filter((l) => /^(Select|Trim|Unusable):/.test(l.text));
    expect(moments.map((l) => [l.timecode, l.colour])).toEqual([
      ['00:01:00;06', 'GREEN'],
      ['00:01:04;09', 'YELLOW'],
      ['00:01:04;09', 'RED'],
      ['00:01:09;24', 'GREEN'],
    ]);
    expect(moments[0]!.text).toBe(
      'Select: Complete sentence, clean delivery and good quality. “Welcome back to the panel.”',
    );
    // Speakers never take a moment's colour, so a colour means one thing.
    const speakers = event!.locators.filter((l) => !moments.includes(l)).map((l) => l.colour);
    expect(speakers).toEqual(['BLUE', 'CYAN', 'MAGENTA', 'BLUE']);
  });

  it('FCPXML: select a completed to-do (green), unusable an open to-do (red), trim a chapter marker', () => {
    const doc = parseXml(renderExport('fcpxml', panel).body);
    const [clip] = findAll(doc, 'asset-clip');
    const kinds = clip!.children
      .filter((c) => c.name === 'marker' || c.name === 'chapter-marker')
      .filter((c) => c.attributes.note?.startsWith('moment '))
      .map((c) => [c.name, c.attributes.completed ?? null, c.attributes.value!.split(':')[0]]);
    expect(kinds).toEqual([
      ['marker', '1', 'Select'],
      ['chapter-marker', null, 'Trim'],
      ['marker', '0', 'Unusable'],
      ['marker', '1', 'Select'],
    ]);
  });

  it('a moment without a reason or words still reads', () => {
    const bare: ExportMoment = {
      id: 'x',
      type: 'trim',
      start: 0,
      end: 1,
      speaker: 'S1',
      score: 0,
      reason: ' ',
      segment_ids: [],
    };
    expect(momentText(bare)).toBe('Trim: no reason given');
  });
});

describe('selects EDL', () => {
  const TIMEBASES = FRAME_RATES.flatMap((rate) =>
    (supportsDropFrame(rate) ? [false, true] : [false]).map((df) => [rate, df] as const),
  );

  it.each(TIMEBASES)(
    '%s fps, drop frame %s: one event per select, frame-accurate, butted end to end',
    (rate, df) => {
      const sep = df ? ';' : ':';
      const last = String(Math.round(Number(rate)) - 3).padStart(2, '0');
      // Starts 3 frames before a minute so drop frame's skipped labels are crossed.
      const start = `00:09:59${sep}${last}`;
      const selects: ExportMoment[] = [0.013, 3.3, 7.77].map((t, i) => ({
        id: `s${i}`,
        type: 'select',
        start: t,
        end: t + 1.234 + i,
        speaker: 'S1',
        score: 0.9,
        reason: 'clean',
        segment_ids: [i],
        text: `line ${i}`,
      }));
      const input: ExportInput = {
        ...panel,
        media: { frame_rate: rate, drop_frame: df, start_timecode: start, tape: 'A' },
        // Shuffled, with other types between: only selects become events, in time order.
        moments: [selects[2]!, { ...selects[0]!, id: 'u', type: 'unusable' }, selects[0]!, selects[1]!],
      };
      const edl = parseEdl(renderExport('selects_edl', input).body);
      expect(edl.dropFrame).toBe(df);
      expect(edl.events).toHaveLength(3);
      const tb = { frameRate: rate, dropFrame: df };
      const origin = frames(start, rate, df);
      const recordOrigin = frames(`01:00:00${sep}00`, rate, df);
      let record = recordOrigin;
      edl.events.forEach((e, i) => {
        const m = selects[i]!;
        const inF = frames(e.sourceIn, rate, df);
        const outF = frames(e.sourceOut, rate, df);
        // The frame the moment starts in, and the frame after the one it ends in.
        expect(inF - origin).toBe(secondsToFrames(m.start, rate));
        expect(outF - origin).toBe(secondsToFramesCeil(m.end, rate));
        expect(frames(e.recordIn, rate, df)).toBe(record);
        expect(frames(e.recordOut, rate, df) - record).toBe(outF - inF);
        expect(e.recordIn).toBe(formatTimecode(record, tb));
        record += outF - inF;
        expect(e.clipName).toBe('Panel, episode 3.wav');
        expect(e.locators).toEqual([
          { timecode: e.recordIn, colour: 'GREEN', text: `Select: clean “line ${i}”` },
        ]);
        expect(e.number).toBe(i + 1);
      });
    },
  );

  it('keeps a moment past the end inside the recording, and at least one frame long', () => {
    const input: ExportInput = {
      ...panel,
      moments: [
        {
          id: 'a',
          type: 'select',
          start: 19.99,
          end: 25,
          speaker: 'S1',
          score: 1,
          reason: 'r',
          segment_ids: [],
        },
        { id: 'b', type: 'select', start: 2, end: 2, speaker: 'S1', score: 1, reason: 'r', segment_ids: [] },
      ],
    };
    const [b, a] = parseEdl(renderExport('selects_edl', input).body).events;
    const f = (tc: string) => frames(tc, '29.97', true);
    expect(f(b!.sourceOut) - f(b!.sourceIn)).toBe(1);
    // 20 s at 29.97 is 599.4 frames: the recording's last frame is 599, its exclusive out 600.
    expect(f(a!.sourceOut) - f('00:00:59;20')).toBe(600);
    expect(f(a!.sourceIn) - f('00:00:59;20')).toBe(599);
  });

  it('says so when there are no selects', () => {
    const edl = parseEdl(renderExport('selects_edl', { ...panel, moments: [] }).body);
    expect(edl.events).toEqual([]);
    expect(edl.notes.at(-1)).toMatch(/NO SELECT MOMENTS/);
    expect(edl.title).toBe('Panel, episode 3.wav selects');
  });
});

describe('analysis CSV', () => {
  it('one row per line, every column, values from the analysis and empty where there is none', () => {
    const [header, ...rows] = parseCsv(renderExport('analysis_csv', panel).body);
    expect(header).toEqual([...ANALYSIS_CSV_COLUMNS]);
    expect(rows).toHaveLength(panel.transcript.segments.length);
    for (const r of rows) expect(r).toHaveLength(header!.length);
    const cell = (row: number, col: (typeof ANALYSIS_CSV_COLUMNS)[number]) =>
      rows[row]![ANALYSIS_CSV_COLUMNS.indexOf(col)];
    expect(cell(1, 'text')).toBe('Um, so, I think, uh, the the budget is');
    expect(cell(1, 'delivery_flags')).toBe('hesitant; trailing_off');
    expect(cell(1, 'pitch_hz')).toBe(''); // null in the document: nothing voiced
    expect(cell(1, 'note')).toBe('\'=Restart: three hesitations, and the peaks clip, "badly".');
    expect(cell(1, 'moments')).toBe('trim trim-1; unusable unusable-1');
    expect(cell(1, 'mos_ovrl')).toBe('');
    expect(cell(2, 'emphasis')).toBe('doubled; nobody');
    expect(cell(2, 'speaker_name')).toBe("'@Grace");
    expect(cell(0, 'start_timecode')).toBe('00:01:00;06');
    expect(cell(0, 'valence')).toBe('0.4');
    // The last line has no analysis: only the transcript's columns and the timebase are filled.
    const empty = ANALYSIS_CSV_COLUMNS.filter((c) => cell(3, c) === '');
    expect(empty).toEqual(ANALYSIS_CSV_COLUMNS.slice(8, -1));
  });

  it('formats numbers without noise', () => {
    expect(numberCell(0.30000000000000004)).toBe('0.3');
    expect(numberCell(-0.0001)).toBe('0');
    expect(numberCell(null)).toBe('');
    expect(numberCell(Number.NaN)).toBe('');
    expect(numberCell(158.44, 0)).toBe('158');
  });
});
