/**
 * CMX3600 EDL: one event covering the whole recording, its record side on the same clock as its source
 * side (the timeline starts at the recording's start timecode), and one `* LOC:` locator per mark in the
 * Avid style that Media Composer and Resolve read (`* LOC: <tc> <COLOUR> <text>`). Moments are coloured
 * by type. The selects EDL (`renderSelectsEdl`) strings out one event per `select` moment instead.
 */
import { formatTimecode, parseTimecode, secondsToFrames, secondsToFramesCeil } from '../../shared/timecode';
import { type Mark, collectMarks, momentMarks } from './marks';
import { cleanText, truncate } from './text';
import { type ExportTimebase, resolveTimebase } from './timebase';
import type { ExportFile, ExportInput } from './types';

/**
 * Avid locator colours. Moments take their type's colour (select green, unusable red, trim yellow); so
 * that a colour always means one thing, segments take one of the others per speaker in order of
 * appearance, and other marks (audience events) are red with their kind written first.
 */
const SPEAKER_COLOURS = ['BLUE', 'CYAN', 'MAGENTA', 'WHITE'] as const;
export const MOMENT_COLOURS: Record<string, string> = { select: 'GREEN', unusable: 'RED', trim: 'YELLOW' };
const OTHER_COLOUR = 'RED';
const REEL_CHARS = 8;
/** Locator text is cut here; some importers choke on very long comment lines. */
const MAX_LOCATOR_TEXT = 120;
/** Where the selects' record timeline starts: the usual first frame of an editor's sequence. */
const SELECTS_RECORD_START = '01:00:00';

export interface Reel {
  reel: string;
  /** Why the reel differs from the tape name, or null when it is the tape name itself. */
  comment: string | null;
}

/**
 * CMX3600 reels are at most 8 characters; letters, digits and underscores are the set every importer
 * accepts. Other characters are dropped, then the name is cut to 8. No tape → AX (auxiliary source).
 */
export function reelFromTape(tape: string | null): Reel {
  if (tape == null || cleanText(tape) === '') {
    return { reel: 'AX', comment: 'REEL: AX (NO TAPE NAME SET; RELINK BY CLIP NAME)' };
  }
  const name = cleanText(tape);
  let reel = name.replace(/[^A-Za-z0-9_]/g, '').slice(0, REEL_CHARS);
  if (reel.toUpperCase() === 'BL') reel = `${reel}_`; // BL means black in CMX3600.
  if (reel === '') {
    return {
      reel: 'AX',
      comment: `REEL: TAPE "${name}" HAS NO LETTERS, DIGITS OR UNDERSCORES, SO AX IS USED; RELINK BY CLIP NAME`,
    };
  }
  if (reel === name) return { reel, comment: null };
  return {
    reel,
    comment: `REEL: TAPE "${name}" WRITTEN AS "${reel}" (CMX3600 REELS: AT MOST ${REEL_CHARS} LETTERS, DIGITS OR UNDERSCORES; OTHERS DROPPED, THEN CUT TO ${REEL_CHARS})`,
  };
}

function colourFor(mark: Mark, speakers: string[]): string {
  if (mark.moment) return MOMENT_COLOURS[mark.kind] ?? OTHER_COLOUR;
  if (mark.kind !== 'segment') return OTHER_COLOUR;
  const index = speakers.indexOf(mark.speaker);
  return SPEAKER_COLOURS[(index < 0 ? 0 : index) % SPEAKER_COLOURS.length]!;
}

/** The lines before the first event: title, frame code mode, the clock used and any reel note. */
function header(tb: ExportTimebase, title: string, reelComment: string | null): string[] {
  const { clock } = tb;
  return [
    `TITLE: ${truncate(title, 70)}`,
    `FCM: ${clock.dropFrame ? 'DROP FRAME' : 'NON-DROP FRAME'}`,
    tb.assumed
      ? '* TIMECODE: NONE SET FOR THIS RECORDING; ASSUMED 25 FPS NON-DROP FRAME FROM 00:00:00:00'
      : `* TIMECODE: ${clock.frameRate} FPS ${clock.dropFrame ? 'DROP FRAME' : 'NON-DROP FRAME'}, RECORDING STARTS AT ${clock.startTimecode}`,
    ...(reelComment ? [`* ${reelComment}`] : []),
    '',
  ];
}

function eventLine(n: number, reel: string, channel: string, tcs: [string, string, string, string]): string {
  return `${String(n).padStart(3, '0')}  ${reel.padEnd(REEL_CHARS)} ${channel.padEnd(5)} C        ${tcs.join(' ')}`;
}

function locatorText(mark: Mark): string {
  if (mark.kind === 'segment' || mark.moment || mark.kind === mark.text) return mark.text;
  return `${mark.kind}: ${mark.text}`;
}

export function renderEdl(input: ExportInput): ExportFile {
  const tb = resolveTimebase(input.media);
  const { clock } = tb;
  const tc = (frames: number) => formatTimecode(tb.startFrames + frames, clock);
  const { reel, comment } = reelFromTape(input.media?.tape ?? null);
  const fileName = cleanText(input.session.fileName);
  // The event covers every frame that holds audio: out is exclusive, so it is the frame after the last.
  const outFrames = Math.max(1, secondsToFramesCeil(input.session.duration, clock.frameRate));
  const channel = input.session.channels === 1 ? 'A' : 'AA';
  // A range export's event takes the source from its in to its out, recorded from the sequence's start.
  const source = input.range
    ? ([secondsToFrames(input.range.start, clock.frameRate), secondsToFramesCeil(input.range.end, clock.frameRate)] as const)
    : ([0, outFrames] as const);
  const recordOut = input.range ? Math.max(1, source[1] - source[0]) : outFrames;

  const lines = [
    ...header(tb, fileName, comment),
    eventLine(1, reel, channel, [tc(source[0]), tc(Math.max(source[0] + 1, source[1])), tc(0), tc(recordOut)]),
    `* FROM CLIP NAME: ${fileName}`,
  ];
  const speakers = input.transcript.speakers;
  for (const mark of collectMarks(input)) {
    const at = tc(secondsToFrames(mark.start, clock.frameRate));
    lines.push(
      `* LOC: ${at} ${colourFor(mark, speakers).padEnd(7)} ${truncate(locatorText(mark), MAX_LOCATOR_TEXT)}`,
    );
  }
  return { body: `${lines.join('\n')}\n`, contentType: 'text/plain; charset=utf-8', extension: 'edl' };
}

/**
 * Selects: one cut per `select` moment, in time order, butted end to end on a record timeline from
 * 01:00:00:00 (01:00:00;00 in drop frame). Source in is the frame the moment starts in, source out the
 * frame after the one it ends in (CMX3600 outs are exclusive), so every sound of the moment is kept; the
 * record side advances by the same frame count. Each event carries the clip name and a green locator
 * with the reason and words.
 */
export function renderSelectsEdl(input: ExportInput): ExportFile {
  const tb = resolveTimebase(input.media);
  const { clock } = tb;
  const rate = clock.frameRate;
  const { reel, comment } = reelFromTape(input.media?.tape ?? null);
  const fileName = cleanText(input.session.fileName);
  const channel = input.session.channels === 1 ? 'A' : 'AA';
  const last = Math.max(1, secondsToFramesCeil(input.session.duration, rate));
  const recordStart = parseTimecode(`${SELECTS_RECORD_START}${clock.dropFrame ? ';' : ':'}00`, clock);
  if (!recordStart.ok) throw new RangeError(recordStart.reason);
  const src = (frames: number) => formatTimecode(tb.startFrames + frames, clock);
  const rec = (frames: number) => formatTimecode(recordStart.frames + frames, clock);

  const selects = momentMarks(input.moments)
    .filter((m) => m.kind === 'select')
    .sort((a, b) => a.start - b.start || a.end - b.end);
  const lines = header(tb, `${fileName} selects`, comment);
  if (selects.length === 0) lines.push('* NO SELECT MOMENTS: THE ANALYSIS OF THIS RECORDING HAS NONE (YET)');
  let record = 0;
  selects.forEach((mark, i) => {
    const inFrame = Math.min(last - 1, Math.max(0, secondsToFrames(mark.start, rate)));
    const outFrame = Math.min(last, Math.max(inFrame + 1, secondsToFramesCeil(mark.end, rate)));
    const length = outFrame - inFrame;
    lines.push(
      eventLine(i + 1, reel, channel, [src(inFrame), src(outFrame), rec(record), rec(record + length)]),
      `* FROM CLIP NAME: ${fileName}`,
      `* LOC: ${rec(record)} ${MOMENT_COLOURS.select!.padEnd(7)} ${truncate(mark.text, MAX_LOCATOR_TEXT)}`,
    );
    record += length;
  });
  return {
    body: `${lines.join('\n')}\n`,
    contentType: 'text/plain; charset=utf-8',
    extension: 'selects.edl',
  };
}
