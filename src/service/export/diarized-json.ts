/**
 * `diarized_json` of a stored recording: the shape `POST /v1/audio/transcriptions` answers with
 * `response_format=diarized_json` (task, duration, text, segments with speaker, start, end and text, usage),
 * made from the transcript as it is now (every correction, reassignment, split and merge in it). The
 * diarizer's turns are not stored with the transcript, so each segment spans its words (first word's start
 * to last word's end), in order and never overlapping, rather than the whole turn the upload's answer spans.
 * Speakers are the transcript's labels, as in the upload's answer and the session's transcript.
 */
import { diarizedExtents } from '../transcription/diarized-segments';
import type { ExportFile, ExportInput } from './types';

export function renderDiarizedJson(input: ExportInput): ExportFile {
  const segments = input.transcript.segments.filter((s) => s.text.trim() !== '');
  // Lines whose words overlap (edited ones can) start where the previous ends, so segments never overlap.
  let previousEnd = -Infinity;
  const extents = diarizedExtents(segments, []).map(({ start, end }) => {
    const from = Math.max(start, previousEnd);
    previousEnd = Math.max(end, from);
    return { start: from, end: previousEnd };
  });
  const range = input.range;
  const duration = range ? range.end - range.start : input.session.duration;
  const body = {
    task: 'transcribe',
    duration: Math.round(duration * 1000) / 1000,
    text: segments.map((s) => s.text.trim()).join(' '),
    segments: segments.map((s, i) => ({
      type: 'transcript.text.segment',
      id: `seg_${s.id}`,
      start: extents[i]!.start,
      end: extents[i]!.end,
      speaker: s.speaker,
      text: s.text.trim(),
    })),
    usage: { type: 'duration', seconds: Math.ceil(duration) },
  };
  return { body: JSON.stringify(body), contentType: 'application/json; charset=utf-8', extension: 'diarized.json' };
}
