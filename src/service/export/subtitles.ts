/** SubRip (.srt) and WebVTT (.vtt): real time from the start of the recording; timecode is not used. */
import { buildCues } from './cues';
import { speakerName } from './text';
import type { ExportFile, ExportInput } from './types';

function clock(seconds: number, separator: ',' | '.'): string {
  const ms = Math.max(0, Math.round(seconds * 1000));
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor(ms / 60_000) % 60;
  const s = Math.floor(ms / 1000) % 60;
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  return `${pad(h)}:${pad(m)}:${pad(s)}${separator}${pad(ms % 1000, 3)}`;
}

/** SRT cues; the speaker's name leads each cue when more than one person speaks. */
export function renderSrt(input: ExportInput): ExportFile {
  const several = new Set(input.transcript.segments.map((s) => s.speaker)).size > 1;
  const cues = buildCues(input.transcript, (s) => (several ? `${speakerName(s, input.speakerNames)}: ` : ''));
  const blocks = cues.map((cue, i) => {
    // "-->" inside text would read as a timing line to some parsers.
    const lines = cue.lines.map((l) => l.replaceAll('-->', '->'));
    return `${i + 1}\n${clock(cue.start, ',')} --> ${clock(cue.end, ',')}\n${lines.join('\n')}\n`;
  });
  return { body: blocks.join('\n'), contentType: 'application/x-subrip; charset=utf-8', extension: 'srt' };
}

function escapeVtt(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

/** WebVTT cues with the speaker as a voice span, `<v Ada>`. */
export function renderVtt(input: ExportInput): ExportFile {
  const cues = buildCues(input.transcript);
  const blocks = cues.map((cue) => {
    const voice = escapeVtt(speakerName(cue.speaker, input.speakerNames));
    const text = cue.lines.map(escapeVtt).join('\n');
    return `${clock(cue.start, '.')} --> ${clock(cue.end, '.')}\n<v ${voice}>${text}\n`;
  });
  return {
    body: ['WEBVTT\n', ...blocks].join('\n'),
    contentType: 'text/vtt; charset=utf-8',
    extension: 'vtt',
  };
}
