/**
 * CMX3600 EDL: one event covering the whole recording, its record side on the same clock as its source
 * side (the timeline starts at the recording's start timecode), and one `* LOC:` locator per mark in the
 * Avid style that Media Composer and Resolve read (`* LOC: <tc> <COLOUR> <text>`).
 */
import { formatTimecode, secondsToFrames, secondsToFramesCeil } from '../../shared/timecode';
import { type Mark, collectMarks } from './marks';
import { cleanText, truncate } from './text';
import { resolveTimebase } from './timebase';
import type { ExportFile, ExportInput } from './types';

/** Avid locator colours; segments take one per speaker in order of appearance, other marks are red. */
const SPEAKER_COLOURS = ['BLUE', 'GREEN', 'CYAN', 'YELLOW', 'MAGENTA', 'WHITE'] as const;
const OTHER_COLOUR = 'RED';
const REEL_CHARS = 8;
/** Locator text is cut here; some importers choke on very long comment lines. */
const MAX_LOCATOR_TEXT = 120;

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
  if (mark.kind !== 'segment') return OTHER_COLOUR;
  const index = speakers.indexOf(mark.speaker);
  return SPEAKER_COLOURS[(index < 0 ? 0 : index) % SPEAKER_COLOURS.length]!;
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

  const lines = [
    `TITLE: ${truncate(fileName, 70)}`,
    `FCM: ${clock.dropFrame ? 'DROP FRAME' : 'NON-DROP FRAME'}`,
    tb.assumed
      ? '* TIMECODE: NONE SET FOR THIS RECORDING; ASSUMED 25 FPS NON-DROP FRAME FROM 00:00:00:00'
      : `* TIMECODE: ${clock.frameRate} FPS ${clock.dropFrame ? 'DROP FRAME' : 'NON-DROP FRAME'}, RECORDING STARTS AT ${clock.startTimecode}`,
    ...(comment ? [`* ${comment}`] : []),
    '',
    `001  ${reel.padEnd(REEL_CHARS)} ${channel.padEnd(5)} C        ${tc(0)} ${tc(outFrames)} ${tc(0)} ${tc(outFrames)}`,
    `* FROM CLIP NAME: ${fileName}`,
  ];
  const speakers = input.transcript.speakers;
  for (const mark of collectMarks(input)) {
    const at = tc(secondsToFrames(mark.start, clock.frameRate));
    const text =
      mark.kind === 'segment' || mark.kind === mark.text ? mark.text : `${mark.kind}: ${mark.text}`;
    lines.push(`* LOC: ${at} ${colourFor(mark, speakers).padEnd(7)} ${truncate(text, MAX_LOCATOR_TEXT)}`);
  }
  return { body: `${lines.join('\n')}\n`, contentType: 'text/plain; charset=utf-8', extension: 'edl' };
}
