/**
 * FCPXML 1.10 (Final Cut Pro; DaVinci Resolve and Premiere import it too): the recording as an audio
 * asset, a project whose single clip spans it, and one marker per mark. Every time is a whole number of
 * frames written as an exact rational (at 29.97: n × 1001/30000 s), as FCP requires. Moments are
 * coloured by type the only way FCPXML allows, since FCP ties a marker's colour to its kind: `select` a
 * completed to-do (green), `unusable` an open to-do (red), `trim` a chapter marker (orange); segments
 * and other marks are standard markers (blue).
 */
import { type FrameRate, frameDuration, secondsToFrames, secondsToFramesCeil } from '../../shared/timecode';
import { type Mark, collectMarks } from './marks';
import { baseName, cleanText } from './text';
import { resolveTimebase } from './timebase';
import type { ExportFile, ExportInput } from './types';

/** FCP's names for 1080p formats at each rate (the project needs a video format even for audio). */
const FORMAT_NAMES: Record<FrameRate, string> = {
  '23.976': 'FFVideoFormat1080p2398',
  '24': 'FFVideoFormat1080p24',
  '25': 'FFVideoFormat1080p25',
  '29.97': 'FFVideoFormat1080p2997',
  '30': 'FFVideoFormat1080p30',
  '50': 'FFVideoFormat1080p50',
  '59.94': 'FFVideoFormat1080p5994',
  '60': 'FFVideoFormat1080p60',
};

/** Escapes text for an XML attribute or element, dropping characters XML 1.0 cannot carry. */
export function escapeXml(text: string): string {
  return (
    text
      // eslint-disable-next-line no-control-regex
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '')
      .replaceAll('&', '&amp;')
      .replaceAll('<', '&lt;')
      .replaceAll('>', '&gt;')
      .replaceAll('"', '&quot;')
      .replaceAll("'", '&apos;')
  );
}

/** `frames` frames as FCPXML time: "0s", whole seconds as "12s", else "n/ds" over the rate's timescale. */
export function fcpTime(frames: number, rate: FrameRate): string {
  const { num, den } = frameDuration(rate); // seconds per frame = num/den
  const numerator = frames * num;
  if (numerator % den === 0) return `${numerator / den}s`;
  return `${numerator}/${den}s`;
}

function attrs(pairs: Array<[string, string | number | undefined]>): string {
  return pairs
    .filter((p): p is [string, string | number] => p[1] !== undefined)
    .map(([k, v]) => ` ${k}="${escapeXml(String(v))}"`)
    .join('');
}

/** FCP's marker kinds, each with its colour: see the header. */
export const MOMENT_MARKERS: Record<string, { element: 'marker' | 'chapter-marker'; completed?: '0' | '1' }> =
  {
    select: { element: 'marker', completed: '1' },
    unusable: { element: 'marker', completed: '0' },
    trim: { element: 'chapter-marker' },
  };

function markerKind(mark: Mark): { element: 'marker' | 'chapter-marker'; completed?: '0' | '1' } {
  return (mark.moment && MOMENT_MARKERS[mark.kind]) || { element: 'marker' };
}

function markNote(mark: Mark): string {
  if (mark.kind === 'segment') return `segment ${mark.id}, speaker ${mark.speaker}`;
  const m = mark.moment;
  if (!m) return mark.kind;
  const lines = m.segment_ids.length ? `, lines ${m.segment_ids.join(' ')}` : '';
  return `moment ${m.id}: ${mark.kind}, speaker ${m.speaker}, score ${Math.round(m.score * 100) / 100}${lines}`;
}

export function renderFcpxml(input: ExportInput): ExportFile {
  const tb = resolveTimebase(input.media);
  const rate = tb.clock.frameRate;
  const time = (frames: number) => fcpTime(frames, rate);
  const fileName = cleanText(input.session.fileName);
  const name = baseName(fileName);
  const start = tb.startFrames;
  const durationFrames = Math.max(1, secondsToFramesCeil(input.session.duration, rate));
  // A range export's clip starts at the range's in point of the asset and lasts to its out point.
  const clipIn = input.range ? secondsToFrames(input.range.start, rate) : 0;
  const clipFrames = input.range ? Math.max(1, secondsToFramesCeil(input.range.end, rate) - clipIn) : durationFrames;
  const tcFormat = tb.clock.dropFrame ? 'DF' : 'NDF';
  const { num, den } = frameDuration(rate);
  const channels = input.session.channels;
  const tape = input.media?.tape ? cleanText(input.media.tape) : '';
  const note = `Timecode: ${tb.description}.`;

  const markers = collectMarks(input).map((mark) => {
    const at = secondsToFrames(mark.start, rate);
    // Markers sit on frame boundaries and last at least one frame.
    const length = Math.max(1, secondsToFramesCeil(mark.end, rate) - at);
    const { element, completed } = markerKind(mark);
    return `              <${element}${attrs([
      ['start', time(start + at)],
      ['duration', time(length)],
      ['value', mark.text],
      ...(completed === undefined ? [] : ([['completed', completed]] as Array<[string, string]>)),
      ['note', markNote(mark)],
    ])}/>`;
  });

  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE fcpxml>',
    '<fcpxml version="1.10">',
    '  <resources>',
    `    <format${attrs([
      ['id', 'r1'],
      ['name', FORMAT_NAMES[rate]],
      ['frameDuration', `${num}/${den}s`],
      ['width', 1920],
      ['height', 1080],
    ])}/>`,
    `    <asset${attrs([
      ['id', 'r2'],
      ['name', name],
      ['start', time(start)],
      ['duration', time(durationFrames)],
      ['hasVideo', 0],
      ['hasAudio', 1],
      ['audioSources', 1],
      ['audioChannels', channels],
      ['audioRate', input.session.sampleRate],
    ])}>`,
    // The service does not know where the file lives on the editor's disk: a relative name to relink.
    `      <media-rep kind="original-media" src="${escapeXml(encodeURIComponent(fileName))}"/>`,
    ...(tape
      ? [
          '      <metadata>',
          `        <md key="com.apple.proapps.studio.reel" value="${escapeXml(tape)}"/>`,
          '      </metadata>',
        ]
      : []),
    '    </asset>',
    '  </resources>',
    '  <library>',
    `    <event name="${escapeXml(name)}">`,
    `      <project name="${escapeXml(name)}">`,
    `        <sequence${attrs([
      ['format', 'r1'],
      ['duration', time(clipFrames)],
      ['tcStart', time(start)],
      ['tcFormat', tcFormat],
      [
        'audioLayout',
        channels === 1 ? 'mono' : channels !== undefined && channels > 2 ? 'surround' : 'stereo',
      ],
      ['audioRate', '48k'],
    ])}>`,
    '          <spine>',
    `            <asset-clip${attrs([
      ['ref', 'r2'],
      ['offset', time(start)],
      ['name', name],
      ['start', time(start + clipIn)],
      ['duration', time(clipFrames)],
      ['tcFormat', tcFormat],
      ['audioRole', 'dialogue'],
    ])}>`,
    `              <note>${escapeXml(note)}</note>`,
    ...markers,
    '            </asset-clip>',
    '          </spine>',
    '        </sequence>',
    '      </project>',
    '    </event>',
    '  </library>',
    '</fcpxml>',
  ];
  return {
    body: `${lines.join('\n')}\n`,
    contentType: 'application/xml; charset=utf-8',
    extension: 'fcpxml',
  };
}
