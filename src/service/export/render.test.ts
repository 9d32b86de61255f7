import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseSync } from 'subtitle';
import { describe, expect, it } from 'vitest';
import {
  framesPerDay,
  parseTimecode,
  rationalRate,
  secondsToFrames,
  timecodeToSeconds,
} from '../../shared/timecode';
import { interview, memo } from './fixtures/interview';
import { panel } from './fixtures/panel';
import { EXPORT_FORMATS, type ExportInput, isExportFormat, renderExport } from './index';
import { parseCsv } from './testing/csv';
import { parseEdl } from './testing/edl';
import { findAll, parseXml } from './testing/xml';

const FIXTURES = path.join(import.meta.dirname, 'fixtures');

function expected(name: string): string {
  return readFileSync(path.join(FIXTURES, name), 'utf8');
}

describe('exact expected files (fixtures/, checked by hand)', () => {
  const INPUTS = { interview, memo, panel };
  const EXTENSIONS: Record<string, string> = { selects_edl: 'selects.edl', analysis_csv: 'analysis.csv', diarized_json: 'diarized.json' };
  // panel (with an analysis) has every format that marks moments or reads the analysis.
  const CASES = EXPORT_FORMATS.flatMap((f) => [
    ['interview', f] as const,
    ['memo', f] as const,
    ...(['edl', 'fcpxml', 'csv', 'selects_edl', 'analysis_csv'].includes(f) ? [['panel', f] as const] : []),
  ]);
  it.each(CASES)('%s.%s', (name, format) => {
    const out = renderExport(format, INPUTS[name]);
    const extension = EXTENSIONS[format] ?? format;
    expect(out.extension).toBe(extension);
    expect(out.body).toBe(expected(`${name}.${extension}`));
  });

  it('declares content types', () => {
    expect(renderExport('srt', memo).contentType).toBe('application/x-subrip; charset=utf-8');
    expect(renderExport('vtt', memo).contentType).toBe('text/vtt; charset=utf-8');
    expect(renderExport('edl', memo).contentType).toBe('text/plain; charset=utf-8');
    expect(renderExport('fcpxml', memo).contentType).toBe('application/xml; charset=utf-8');
    expect(renderExport('csv', memo).contentType).toMatch(/^text\/csv; charset=utf-8/);
    expect(renderExport('selects_edl', memo).contentType).toBe('text/plain; charset=utf-8');
    expect(renderExport('analysis_csv', memo).contentType).toBe('text/csv; charset=utf-8; header=present');
    expect(renderExport('diarized_json', memo).contentType).toBe('application/json; charset=utf-8');
    expect(isExportFormat('edl')).toBe(true);
    expect(isExportFormat('toString')).toBe(false);
    expect(() => renderExport('docx' as never, memo)).toThrow(/unknown export format/);
  });
});

describe('SRT and VTT read back with the subtitle package', () => {
  it.each(['srt', 'vtt'] as const)('%s', (format) => {
    const body = renderExport(format, interview).body;
    const cues = parseSync(body).flatMap((n) => (n.type === 'cue' ? [n.data] : []));
    expect(cues.map((c) => [c.start, c.end])).toEqual(
      format === 'srt'
        ? [
            [0, 2000],
            [2500, 4250],
            [4500, 7750],
            [7750, 11000],
            [11200, 12400],
          ]
        : [
            [0, 2000],
            [2500, 4250],
            [4500, 8250],
            [8250, 11000],
            [11200, 12400],
          ],
    );
    for (const cue of cues) {
      const lines = cue.text.split('\n');
      expect(lines.length).toBeLessThanOrEqual(2);
      // The 42-character limit applies to what is shown, so without the voice tag and escapes.
      for (const line of lines)
        expect(line.replace(/^<v [^>]*>/, '').replace(/&\w+;/g, '_').length).toBeLessThanOrEqual(42);
    }
    const shown = cues.map((c) => c.text.replace(/^<v ([^>]*)>/, '$1: ').replaceAll('\n', ' ')).join(' ');
    const words = shown
      .replaceAll('&lt;', '<')
      .replaceAll('&gt;', '>')
      .replace(/(Ada|S2): /g, '');
    // Every word of the transcript appears, in order, exactly once.
    expect(words).toBe(interview.transcript.segments.map((s) => s.text).join(' '));
    if (format === 'vtt') expect(cues[1]!.text).toBe('<v S2>Thanks \u2014 it\'s "great" to be here.');
  });

  it('SRT omits the speaker for a single speaker; VTT always tags the voice', () => {
    expect(parseSync(renderExport('srt', memo).body)).toEqual([
      { type: 'cue', data: { start: 520, end: 3100, text: 'Remember to call back before noon.' } },
    ]);
    const vtt = parseSync(renderExport('vtt', memo).body);
    expect(vtt.at(-1)).toEqual({
      type: 'cue',
      data: { start: 520, end: 3100, text: '<v S1>Remember to call back before noon.', settings: undefined },
    });
  });
});

describe('EDL reads back as CMX3600', () => {
  it('one event spanning the recording, locators on the recording clock', () => {
    const edl = parseEdl(renderExport('edl', interview).body);
    expect(edl.title).toBe('Studio A & B, take 2.wav');
    expect(edl.dropFrame).toBe(true);
    expect(edl.events).toHaveLength(1);
    const [event] = edl.events;
    expect(event).toMatchObject({
      number: 1,
      reel: 'A001_C00',
      channels: 'AA',
      transition: 'C',
      sourceIn: '00:58:59;28',
      recordIn: '00:58:59;28',
      clipName: 'Studio A & B, take 2.wav',
    });
    const tb = { frameRate: '29.97', dropFrame: true, startTimecode: '00:58:59;28' } as const;
    // Out is exclusive: 12.5 s is 374.6 frames, so 375 frames are covered.
    expect(timecodeToSeconds(event!.sourceOut, tb)).toBeCloseTo((375 * 1001) / 30000, 9);
    expect(event!.recordOut).toBe(event!.sourceOut);
    const marks = [...interview.transcript.segments.map((s) => s.start), 6].sort((a, b) => a - b);
    expect(event!.locators.map((l) => secondsToFrames(timecodeToSeconds(l.timecode, tb), '29.97'))).toEqual(
      marks.map((s) => secondsToFrames(s, '29.97')),
    );
    expect(event!.locators.map((l) => l.colour)).toEqual(['BLUE', 'CYAN', 'BLUE', 'RED', 'CYAN']);
    expect(event!.locators[3]!.text).toBe('laughter: Laughter');
    for (const l of event!.locators) expect(parseTimecode(l.timecode, tb).ok).toBe(true);
    expect(edl.notes.join('\n')).toMatch(/A001_C003_0415.*A001_C00/);
  });

  it('says so when the timebase is assumed, and uses AX without a tape', () => {
    const edl = parseEdl(renderExport('edl', memo).body);
    expect(edl.dropFrame).toBe(false);
    expect(edl.notes.join('\n')).toMatch(/NONE SET.*ASSUMED 25 FPS NON-DROP FRAME FROM 00:00:00:00/);
    expect(edl.events[0]).toMatchObject({ reel: 'AX', sourceIn: '00:00:00:00', sourceOut: '00:00:03:08' });
  });
});

describe('FCPXML is well-formed and frame-accurate', () => {
  function rational(value: string): [bigint, bigint] {
    const m = /^(\d+)(?:\/(\d+))?s$/.exec(value);
    if (!m) throw new Error(`not an FCPXML time: ${value}`);
    return [BigInt(m[1]!), BigInt(m[2] ?? '1')];
  }
  /** Time as a whole number of frames; fails if it is not on a frame boundary. */
  function frames(value: string, frameDuration: string): bigint {
    const [n, d] = rational(value);
    const [fn, fd] = rational(frameDuration);
    // value / frameDuration = (n × fd) / (d × fn) must be an integer.
    expect((n * fd) % (d * fn), `${value} on a ${frameDuration} boundary`).toBe(0n);
    return (n * fd) / (d * fn);
  }

  function check(input: ExportInput) {
    const doc = parseXml(renderExport('fcpxml', input).body);
    expect(doc.name).toBe('fcpxml');
    expect(doc.attributes.version).toBe('1.10');
    const [format] = findAll(doc, 'format');
    const [asset] = findAll(doc, 'asset');
    const [sequence] = findAll(doc, 'sequence');
    const [clip] = findAll(doc, 'asset-clip');
    const fd = format!.attributes.frameDuration!;
    const ids = new Set([format!.attributes.id, asset!.attributes.id]);
    expect(ids.size).toBe(2);
    expect(ids.has(sequence!.attributes.format)).toBe(true);
    expect(clip!.attributes.ref).toBe(asset!.attributes.id);
    const start = frames(clip!.attributes.start!, fd);
    const duration = frames(clip!.attributes.duration!, fd);
    expect(frames(asset!.attributes.start!, fd)).toBe(start);
    expect(frames(sequence!.attributes.tcStart!, fd)).toBe(start);
    expect(frames(clip!.attributes.offset!, fd)).toBe(start);
    expect(frames(sequence!.attributes.duration!, fd)).toBe(duration);
    const markers = findAll(clip!, 'marker');
    for (const m of markers) {
      const at = frames(m.attributes.start!, fd);
      expect(at).toBeGreaterThanOrEqual(start);
      expect(at + frames(m.attributes.duration!, fd)).toBeLessThanOrEqual(start + duration);
    }
    return { doc, fd, format: format!, sequence: sequence!, clip: clip!, markers, start };
  }

  it('interview: 29.97 DF from 00:58:59;28', () => {
    const { fd, sequence, clip, markers, start } = check(interview);
    expect(fd).toBe('1001/30000s');
    expect(sequence.attributes.tcFormat).toBe('DF');
    expect(start).toBe(106092n); // 00:58:59;28
    expect(markers.map((m) => m.attributes.value)).toEqual([
      'Ada: Hello, and welcome to the show.',
      'S2: Thanks \u2014 it\'s "great" to be here.',
      `Ada: ${interview.transcript.segments[2]!.text}`,
      'Laughter',
      'S2: =SUM(A1) is not a formula, just words.',
    ]);
    expect(markers.map((m) => frames(m.attributes.start!, fd) - start)).toEqual([0n, 74n, 134n, 179n, 335n]);
    expect(findAll(clip, 'note')[0]!.text).toBe('Timecode: 29.97 fps drop frame, starting at 00:58:59;28.');
    expect(findAll(clip, 'md')).toEqual([]); // reel metadata lives on the asset
  });

  it('memo: notes the assumed 25 fps timebase', () => {
    const { fd, sequence, clip } = check(memo);
    expect(fd).toBe('1/25s');
    expect(sequence.attributes.tcFormat).toBe('NDF');
    expect(findAll(clip, 'note')[0]!.text).toMatch(
      /no timebase is set.*25 fps non-drop frame starting at 00:00:00:00/,
    );
  });

  it.each([
    ['23.976', false, '1001/24000s'],
    ['24', false, '1/24s'],
    ['25', false, '1/25s'],
    ['29.97', false, '1001/30000s'],
    ['30', false, '1/30s'],
    ['50', false, '1/50s'],
    ['59.94', true, '1001/60000s'],
    ['60', false, '1/60s'],
  ] as const)('%s fps: frameDuration %s and every time on a frame boundary', (rate, df, frameDuration) => {
    const nominal = Math.round(rationalRate(rate).num / rationalRate(rate).den);
    const start = df ? '23:59:50;04' : `23:59:50:${String(nominal - 1).padStart(2, '0')}`;
    const {
      fd,
      sequence,
      start: startFrames,
    } = check({
      ...interview,
      media: { frame_rate: rate, drop_frame: df, start_timecode: start, tape: null },
    });
    expect(fd).toBe(frameDuration);
    expect(sequence.attributes.tcFormat).toBe(df ? 'DF' : 'NDF');
    const parsed = parseTimecode(start, { frameRate: rate, dropFrame: df });
    expect(parsed.ok && BigInt(parsed.frames)).toBe(startFrames);
    expect(startFrames).toBeLessThan(framesPerDay({ frameRate: rate, dropFrame: df }));
  });
});

describe('CSV reads back under RFC 4180', () => {
  it('interview', () => {
    const rows = parseCsv(renderExport('csv', interview).body);
    const [header, ...data] = rows;
    expect(header).toEqual([
      'id',
      'kind',
      'speaker',
      'speaker_name',
      'start_seconds',
      'end_seconds',
      'start_timecode',
      'end_timecode',
      'text',
      'timebase',
    ]);
    for (const row of data) expect(row).toHaveLength(header!.length);
    expect(data.map((r) => r[0])).toEqual(['0', '1', '2', 'm1', '3']);
    expect(data[1]![8]).toBe('Thanks \u2014 it\'s "great" to be here.');
    expect(data[2]![8]).toBe(interview.transcript.segments[2]!.text);
    // A cell starting with "=" would run as a formula in a spreadsheet.
    expect(data[4]![8]).toBe("'=SUM(A1) is not a formula, just words.");
    expect(data[3]).toEqual([
      'm1',
      'laughter',
      '',
      '',
      '6.000',
      '7.500',
      '00:59:05;29',
      '00:59:07;14',
      'Laughter',
      '29.97 fps drop frame, starting at 00:58:59;28',
    ]);
  });

  it('memo carries the assumed timebase on every row', () => {
    const [, row] = parseCsv(renderExport('csv', memo).body);
    expect(row!.slice(6)).toEqual([
      '00:00:00:13',
      '00:00:03:02',
      'Remember to call back before noon.',
      '25 fps non-drop frame from 00:00:00:00 (assumed: no timebase set)',
    ]);
  });
});

describe('bad stored data', () => {
  it('refuses a start timecode that does not exist at the rate', () => {
    const input = { ...interview, media: { ...interview.media!, start_timecode: '00:01:00;00' } };
    for (const format of ['edl', 'fcpxml', 'csv', 'selects_edl', 'analysis_csv'] as const) {
      expect(() => renderExport(format, input)).toThrow(/start timecode "00:01:00;00" does not exist/);
    }
  });
});
