/**
 * The analysis CSV: one row per transcript line with its analysis, for a spreadsheet or a script. RFC 4180
 * like the plain CSV (csv.ts): commas, CRLF, quoting and formula-safe text. Empty cells mean "no value":
 * the line was not analysed (yet), or the value is null in the Analysis document (e.g. no pitch in an
 * unvoiced line). Lists inside a cell are joined with "; ". Columns, in order, are ANALYSIS_CSV_COLUMNS;
 * docs/api.md ("Exports and the analysis") documents each one.
 */
import { secondsToTimecode } from '../../shared/timecode';
import { csvField, inertText } from './csv';
import { cleanText, speakerName } from './text';
import { resolveTimebase } from './timebase';
import type { ExportFile, ExportInput, ExportLineAnalysis, ExportMoment } from './types';

type Row = Record<(typeof ANALYSIS_CSV_COLUMNS)[number], string>;

export const ANALYSIS_CSV_COLUMNS = [
  'id',
  'speaker',
  'speaker_name',
  'start_seconds',
  'end_seconds',
  'start_timecode',
  'end_timecode',
  'text',
  'emotion',
  'intensity',
  'valence',
  'arousal',
  'confidence',
  'engagement',
  'take_quality',
  'delivery_score',
  'delivery_label',
  'delivery_flags',
  'emphasis',
  'reactions',
  'audio_issues',
  'note',
  'moments',
  'pitch_hz',
  'pitch_range_st',
  'energy_db',
  'articulation_rate',
  'pace_wpm',
  'pace_vs_speaker',
  'hesitations',
  'longest_pause',
  'quality_score',
  'snr_db',
  'mos_ovrl',
  'perception_source',
  'timebase',
] as const;

/** A number as a cell: at most `digits` decimals, no trailing zeros, "" for null or not finite. */
export function numberCell(value: number | null | undefined, digits = 3): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '';
  const rounded = Number(value.toFixed(digits));
  return String(Object.is(rounded, -0) ? 0 : rounded);
}

const list = (items: readonly string[]) => items.map(cleanText).filter(Boolean).join('; ');
/** A recognized word without the punctuation around it ("doubled," → "doubled"). */
const bare = (word: string) => word.replace(/^[^\p{L}\p{N}']+|[^\p{L}\p{N}']+$/gu, '');

function analysisCells(a: ExportLineAnalysis | undefined): Partial<Row> {
  if (!a) return {};
  const p = a.perception;
  const d = a.delivery;
  const flags = [...new Set([...(p?.delivery ?? []), ...(d?.flags.map((f) => f.type) ?? [])])];
  return {
    emotion: p ? cleanText(p.emotion) : '',
    intensity: numberCell(p?.intensity),
    valence: numberCell(p?.valence),
    arousal: numberCell(p?.arousal),
    confidence: numberCell(p?.confidence),
    engagement: numberCell(p?.engagement),
    take_quality: numberCell(p?.take_quality),
    delivery_score: numberCell(d?.score),
    delivery_label: d ? cleanText(d.label) : '',
    delivery_flags: list(flags),
    emphasis: list(a.emphasis.length ? a.emphasis.map((e) => bare(e.word)) : (p?.emphasis ?? [])),
    reactions: list(p?.reactions ?? []),
    audio_issues: list(p?.audio_issues ?? a.quality.issues.map((i) => i.type)),
    note: p ? inertText(cleanText(p.note)) : '',
    pitch_hz: numberCell(a.prosody.pitch_hz, 1),
    pitch_range_st: numberCell(a.prosody.pitch_range_st, 2),
    energy_db: numberCell(a.prosody.energy_db, 1),
    articulation_rate: numberCell(a.prosody.articulation_rate, 2),
    pace_wpm: numberCell(a.prosody.pace_wpm, 0),
    pace_vs_speaker: numberCell(a.prosody.pace_vs_speaker, 3),
    hesitations: String(a.prosody.hesitations),
    longest_pause: numberCell(a.prosody.longest_pause, 3),
    quality_score: numberCell(a.quality.score, 3),
    snr_db: numberCell(a.quality.snr_db, 1),
    mos_ovrl: numberCell(a.quality.mos?.ovrl, 2),
    perception_source: p?.source ?? '',
  };
}

/** "select moment-3; trim moment-7": the moments that include the line. */
function momentsCell(id: number, moments: readonly ExportMoment[]): string {
  return moments
    .filter((m) => m.segment_ids.includes(id))
    .map((m) => `${cleanText(m.type)} ${cleanText(m.id)}`)
    .join('; ');
}

export function renderAnalysisCsv(input: ExportInput): ExportFile {
  const tb = resolveTimebase(input.media);
  const timebase = tb.assumed
    ? '25 fps non-drop frame from 00:00:00:00 (assumed: no timebase set)'
    : tb.description;
  const byId = new Map((input.lines ?? []).map((l) => [l.id, l]));
  const moments = input.moments ?? [];
  const rows: string[][] = [[...ANALYSIS_CSV_COLUMNS]];
  for (const s of input.transcript.segments) {
    const end = Math.max(s.start, s.end);
    const row: Row = {
      ...Object.fromEntries(ANALYSIS_CSV_COLUMNS.map((c) => [c, ''])),
      id: String(s.id),
      speaker: s.speaker,
      speaker_name: inertText(speakerName(s.speaker, input.speakerNames)),
      start_seconds: s.start.toFixed(3),
      end_seconds: end.toFixed(3),
      start_timecode: secondsToTimecode(s.start, tb.clock),
      end_timecode: secondsToTimecode(end, tb.clock),
      text: inertText(cleanText(s.text)),
      ...analysisCells(byId.get(s.id)),
      moments: momentsCell(s.id, moments),
      timebase,
    } as Row;
    rows.push(ANALYSIS_CSV_COLUMNS.map((c) => row[c]));
  }
  const body = rows.map((row) => row.map(csvField).join(',')).join('\r\n') + '\r\n';
  return { body, contentType: 'text/csv; charset=utf-8; header=present', extension: 'analysis.csv' };
}
