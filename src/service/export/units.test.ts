import { describe, expect, it } from 'vitest';
import { buildCues, wrapLines } from './cues';
import { csvField, inertText } from './csv';
import { reelFromTape } from './edl';
import { escapeXml, fcpTime } from './fcpxml';
import { exportFileName } from './index';
import { collectMarks } from './marks';
import { cleanText, truncate } from './text';
import { parseCsv } from './testing/csv';
import { parseEdl } from './testing/edl';
import { parseXml } from './testing/xml';
import { resolveTimebase } from './timebase';

describe('wrapLines', () => {
  it('keeps short text on one line', () => {
    expect(wrapLines('Short and sweet.')).toEqual(['Short and sweet.']);
    expect(wrapLines('x'.repeat(42))).toEqual(['x'.repeat(42)]);
  });
  it('splits into two lines as even as possible', () => {
    expect(wrapLines('one two three four five six seven eight nine ten eleven twelve')).toEqual([
      'one two three four five six seven',
      'eight nine ten eleven twelve',
    ]);
  });
  it('falls back to greedy lines when two do not suffice, never splitting a word', () => {
    const lines = wrapLines(`${'word '.repeat(30)}${'y'.repeat(50)}`.trim());
    expect(lines.length).toBeGreaterThan(2);
    expect(lines.at(-1)).toBe('y'.repeat(50));
    for (const line of lines.slice(0, -1)) expect(line.length).toBeLessThanOrEqual(42);
  });
});

describe('buildCues', () => {
  const long = Array.from({ length: 40 }, (_, i) => `w${i}`).join(' '); // 40 words, 149 characters

  it('splits by word timings when they line up with the text', () => {
    const words = long.split(' ').map((word, i) => ({ word, start: 10 + i, end: 10.5 + i }));
    const cues = buildCues({
      speakers: ['S1'],
      segments: [{ id: 0, speaker: 'S1', start: 10, end: 50, text: long, words }],
    });
    expect(cues.length).toBeGreaterThan(1);
    expect(cues[0]!.start).toBe(10);
    expect(cues.at(-1)!.end).toBe(50);
    for (const [i, cue] of cues.entries()) {
      expect(cue.lines.length).toBeLessThanOrEqual(2);
      // Each later cue starts when its first word does, and the one before ends there.
      if (i > 0) {
        const first = Number(cue.lines[0]!.split(' ')[0]!.slice(1));
        expect(cue.start).toBe(10 + first);
        expect(cues[i - 1]!.end).toBe(cue.start);
      }
    }
    expect(cues.map((c) => c.lines.join(' ')).join(' ')).toBe(long);
  });

  it('spreads time by characters when the word timings do not match the text', () => {
    const cues = buildCues({
      speakers: ['S1'],
      segments: [
        { id: 0, speaker: 'S1', start: 0, end: 149, text: long, words: [{ word: 'w0', start: 0, end: 1 }] },
      ],
    });
    expect(cues.length).toBeGreaterThan(1);
    // Time per character is 1 s, so a cue starts at its first character's offset in the text.
    for (const cue of cues.slice(1))
      expect(cue.start).toBeCloseTo(long.indexOf(` ${cue.lines[0]!.split(' ')[0]} `) + 1, 9);
  });

  it('skips empty segments and clamps a reversed end', () => {
    const cues = buildCues({
      speakers: ['S1'],
      segments: [
        { id: 0, speaker: 'S1', start: 1, end: 2, text: '  \n ' },
        { id: 1, speaker: 'S1', start: 3, end: 2.5, text: 'Odd\ntimes' },
      ],
    });
    expect(cues).toEqual([{ start: 3, end: 3, speaker: 'S1', lines: ['Odd times'] }]);
  });
});

describe('reelFromTape (CMX3600 reels: 8 of A-Z a-z 0-9 _)', () => {
  it.each([
    [null, 'AX', /NO TAPE NAME/],
    ['', 'AX', /NO TAPE NAME/],
    ['A001', 'A001', null],
    ['TAPE_0001', 'TAPE_000', /WRITTEN AS "TAPE_000"/],
    ['Cam A / Roll 3', 'CamARoll', /OTHERS DROPPED/],
    ['día-1', 'da1', /WRITTEN AS "da1"/],
    ['---', 'AX', /HAS NO LETTERS/],
    ['bl', 'bl_', /WRITTEN AS "bl_"/],
  ] as const)('%j → %s', (tape, reel, comment) => {
    const r = reelFromTape(tape);
    expect(r.reel).toBe(reel);
    expect(r.reel).toMatch(/^[A-Za-z0-9_]{1,8}$/);
    if (comment === null) expect(r.comment).toBeNull();
    else expect(r.comment).toMatch(comment);
  });
});

describe('CSV fields', () => {
  it('quotes only when needed and doubles quotes (RFC 4180)', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\r\nlines')).toBe('"two\r\nlines"');
    expect(parseCsv(`${['a,b', 'say "hi"', 'two\r\nlines', ''].map(csvField).join(',')}\r\n`)).toEqual([
      ['a,b', 'say "hi"', 'two\r\nlines', ''],
    ]);
  });
  it('keeps spreadsheets from running text as formulas', () => {
    expect(inertText('=1+1')).toBe("'=1+1");
    expect(inertText('+44 20')).toBe("'+44 20");
    expect(inertText('-- well')).toBe("'-- well");
    expect(inertText('@here')).toBe("'@here");
    expect(inertText('fine = good')).toBe('fine = good');
  });
});

describe('FCPXML values', () => {
  it('writes frame counts as exact rationals', () => {
    expect(fcpTime(0, '29.97')).toBe('0s');
    expect(fcpTime(1, '29.97')).toBe('1001/30000s');
    expect(fcpTime(30000, '29.97')).toBe('1001s');
    expect(fcpTime(1, '23.976')).toBe('1001/24000s');
    expect(fcpTime(3, '59.94')).toBe('3003/60000s');
    expect(fcpTime(50, '25')).toBe('2s');
    expect(fcpTime(13, '25')).toBe('13/25s');
    expect(fcpTime(90_000, '60')).toBe('1500s');
  });
  it('escapes markup and drops characters XML 1.0 cannot hold', () => {
    const nasty = 'a & b < c > d "e" \'f\' \u0001\u0007g\ttab';
    expect(escapeXml(nasty)).toBe('a &amp; b &lt; c &gt; d &quot;e&quot; &apos;f&apos; g\ttab');
    expect(parseXml(`<x v="${escapeXml(nasty)}">${escapeXml(nasty)}</x>`)).toMatchObject({
      attributes: { v: 'a & b < c > d "e" \'f\' g\ttab' },
      text: 'a & b < c > d "e" \'f\' g\ttab',
    });
  });
});

describe('text helpers and marks', () => {
  it('cleanText and truncate', () => {
    expect(cleanText(' a\n\tb\u0000c\u2028 ')).toBe('a b c');
    expect(truncate('short', 10)).toBe('short');
    expect(truncate('one two three four five', 18)).toBe('one two three...');
    // A word boundary is used only if it keeps more than half the room.
    expect(truncate('one two three four five', 15)).toBe('one two thre...');
    expect(truncate('x'.repeat(20), 10)).toBe('xxxxxxx...');
  });
  it('orders segments and markers by start, segments first on ties', () => {
    const marks = collectMarks({
      session: { id: 's', fileName: 'f.wav', duration: 10 },
      transcript: {
        speakers: ['S1'],
        segments: [
          { id: 7, speaker: 'S1', start: 5, end: 6, text: 'later' },
          { id: 3, speaker: 'S1', start: 1, end: 2, text: 'first' },
          { id: 9, speaker: 'S1', start: 3, end: 4, text: '   ' },
        ],
      },
      media: null,
      markers: [
        { start: 5, end: 5.5, label: '', kind: 'music' },
        { start: 0.5, end: 0.2, label: 'cough', kind: 'noise' },
      ],
    });
    expect(marks.map((m) => [m.id, m.kind, m.text, m.end])).toEqual([
      ['m2', 'noise', 'cough', 0.5],
      ['3', 'segment', 'S1: first', 2],
      ['7', 'segment', 'S1: later', 6],
      ['m1', 'music', 'music', 5.5],
    ]);
  });
  it('resolves a start timecode of null to the first label of the day', () => {
    expect(
      resolveTimebase({ frame_rate: '59.94', drop_frame: true, start_timecode: null, tape: null }),
    ).toMatchObject({
      assumed: false,
      startFrames: 0,
      clock: { startTimecode: '00:00:00;00' },
    });
  });
});

describe('the test readers reject malformed files (so read-back checks mean something)', () => {
  it.each([
    ['<a><b></a>', /expected <\/b>/],
    ['<a x="1" x="2"/>', /duplicate attribute/],
    ['<a>fish & chips</a>', /bare '&'/],
    ['<a/><b/>', /content after the root/],
    ['<a>&nope;</a>', /unknown entity/],
  ])('XML %s', (xml, error) => expect(() => parseXml(xml)).toThrow(error));

  it.each([
    ['a,b\r\nc', /lacks its CRLF/],
    ['a,b\nc,d\r\n', /bare line break/],
    ['"a"b\r\n', /text after closing quote/],
    ['a"b\r\n', /quote inside/],
  ])('CSV %j', (csv, error) => expect(() => parseCsv(csv)).toThrow(error));

  it.each([
    ['FCM: NON-DROP FRAME\n', /no TITLE/],
    ['TITLE: x\nFCM: SOMETIMES\n', /bad FCM/],
    ['TITLE: x\nFCM: DROP FRAME\n001 AX V C 00:00:00;00\n', /not CMX3600/],
  ])('EDL %j', (edl, error) => expect(() => parseEdl(edl)).toThrow(error));
});

describe('exportFileName', () => {
  it.each([
    ['Studio A & B, take 2.wav', 'edl', 'Studio A & B, take 2.edl'],
    ['memo.m4a', 'srt', 'memo.srt'],
    ['no-extension', 'csv', 'no-extension.csv'],
    ['../../etc/passwd', 'vtt', 'passwd.vtt'],
    ['C:\\Users\\me\\take.wav', 'edl', 'take.edl'],
    ['.wav', 'vtt', 'wav.vtt'],
    ['..', 'csv', 'transcript.csv'],
    ['a\nb.mp3', 'fcpxml', 'a b.fcpxml'],
    ['', 'srt', 'transcript.srt'],
  ])('%j → %s', (name, ext, expected) => expect(exportFileName(name, ext)).toBe(expected));

  it.each([
    [{ start: 65.25, end: 130 }, 'readings-7min_00h01m05.250s-00h02m10.000s.srt'],
    [{ start: 0, end: 4.0004 }, 'readings-7min_00h00m00.000s-00h00m04.000s.srt'],
    [{ start: 3599.9996, end: 7384.5 }, 'readings-7min_01h00m00.000s-02h03m04.500s.srt'],
  ])('a part %j carries its range: %s', (range, expected) => expect(exportFileName('readings-7min.flac', 'srt', range)).toBe(expected));
  it('the whole recording (no range) keeps its plain name', () => expect(exportFileName('readings-7min.flac', 'srt', null)).toBe('readings-7min.srt'));
});
