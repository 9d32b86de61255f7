import { describe, expect, it } from 'vitest';
import { interview, memo } from './fixtures/interview';
import { renderExport } from './index';
import type { InvalidInputError } from '../errors';
import { exportInRange, requestedRange } from './range';
import { parseEdl } from './testing/edl';
import { findAll, parseXml } from './testing/xml';

describe('exportInRange', () => {
  const part = exportInRange(interview, { start: 5, end: 7 });

  it('keeps the words whose middle is in the range, cut lines saying only those words', () => {
    // Line 2's word i runs 4.5 + 0.25 i … 4.7 + 0.25 i: middles 5.1 (i = 2) to 6.85 (i = 9) are inside.
    const words = interview.transcript.segments[2]!.text.split(' ').slice(2, 10);
    expect(part.transcript.segments).toHaveLength(1);
    const line = part.transcript.segments[0]!;
    expect(line).toMatchObject({ id: 2, speaker: 'S1', start: 5, end: 7, text: words.join(' ') });
    expect(line.words!.map((w) => w.word)).toEqual(words);
    expect(line.words![0]!.start).toBeCloseTo(5, 9);
    expect(line.words!.at(-1)!.end).toBeCloseTo(6.95, 9);
  });

  it('cuts markers at the range edges and drops those outside; keeps the recording times', () => {
    expect(part.markers).toEqual([{ start: 6, end: 7, label: 'Laughter', kind: 'laughter' }]);
    expect(exportInRange(interview, { start: 0, end: 1 }).markers).toEqual([]);
    expect(exportInRange(interview, { start: 0, end: 1 }).transcript.segments.map((s) => [s.id, s.start, s.end])).toEqual([[0, 0, 1]]);
  });

  it('keeps a whole line as it is, and keeps every speaker listed (same colours and prefixes)', () => {
    const whole = exportInRange(interview, { start: 2, end: 4.3 });
    expect(whole.transcript.segments).toEqual([interview.transcript.segments[1]]);
    expect(whole.transcript.speakers).toEqual(['S1', 'S2']);
  });

  it('subtitles of a range hold only its cues, at the recording times', () => {
    const srt = renderExport('srt', exportInRange(memo, { start: 1, end: 2 })).body;
    expect(srt).toBe('1\n00:00:01,000 --> 00:00:02,000\nRemember to call back before noon.\n');
  });

  it('the EDL event takes the source from in to out, recorded from the start of the sequence', () => {
    const whole = parseEdl(renderExport('edl', interview).body).events[0]!;
    const edl = parseEdl(renderExport('edl', part).body);
    const event = edl.events[0]!;
    // 29.97 DF from 00:58:59;28: 5 s in is frame 149 (00:59:04;29, the labels ;00 and ;01 of minute 59 skipped), 7 s ends at frame ceil(209.79) = 210.
    expect([event.sourceIn, event.sourceOut]).toEqual(['00:59:04;29', '00:59:07;00']);
    expect([event.recordIn, event.recordOut]).toEqual([whole.recordIn, '00:59:02;01']);
    expect(event.locators.map((l) => l.text)).toEqual([`Ada: ${part.transcript.segments[0]!.text}`, 'laughter: Laughter']);
  });

  it('the FCPXML clip starts at the in point of the asset and lasts to the out point', () => {
    const xml = parseXml(renderExport('fcpxml', part).body);
    const clip = findAll(xml, 'asset-clip')[0]!;
    const asset = findAll(xml, 'asset')[0]!;
    const frames = (t: string) => {
      const [n, d] = t.replace(/s$/, '').split('/').map(Number);
      return Math.round(((n ?? 0) / (d ?? 1)) * (30000 / 1001));
    };
    expect(frames(clip.attributes.start!) - frames(asset.attributes.start!)).toBe(149);
    expect(frames(clip.attributes.duration!)).toBe(210 - 149);
    expect(frames(findAll(xml, 'sequence')[0]!.attributes.duration!)).toBe(61);
    expect(frames(asset.attributes.duration!)).toBe(Math.ceil(12.5 * (30000 / 1001)));
  });
});

describe('requestedRange', () => {
  it('is null without start and end, and defaults each side to the recording', () => {
    expect(requestedRange({}, 10)).toBeNull();
    expect(requestedRange({ start: 2 }, 10)).toEqual({ start: 2, end: 10 });
    expect(requestedRange({ end: 3 }, 10)).toEqual({ start: 0, end: 3 });
    expect(requestedRange({ start: 2, end: 12 }, 10)).toEqual({ start: 2, end: 10 });
  });
  it('refuses a start at or past the end, and an end not after the start, naming the field (the route adds where)', () => {
    const fault = (q: { start?: number; end?: number }) => {
      try {
        requestedRange(q, 10);
      } catch (error) {
        return (error as InvalidInputError).issues.map((i) => i.loc.join('.'));
      }
      return null;
    };
    expect(fault({ start: 10 })).toEqual(['start']);
    expect(fault({ start: 4, end: 4 })).toEqual(['end']);
    expect(fault({ start: 4, end: 3 })).toEqual(['end']);
    expect(fault({ end: 0 })).toEqual(['end']);
  });
});
