/**
 * One line's analysis as the line panel lists it: each value with its unit, what backs it (measured,
 * heard…), and for relative values the speaker's usual value. Pure: the panel only lays these rows out.
 */
import type { AnalysisSegment, Baseline, Source } from '../../../shared/schemas/analysis';

export interface ValueRow {
  /** The document's field name (stable, for tests and tooltips). */
  key: string;
  label: string;
  /** The value as shown, with its unit; "—" when the analysis could not measure it. */
  text: string;
  /** The document's value, unformatted. */
  raw: number | string | boolean | null;
  source: Source | null;
  /** What the value means, for the hover title. */
  hint?: string;
}

export interface PauseRow {
  start: number;
  duration: number;
  afterWord: string;
  filled: boolean;
  sentenceEnd: boolean;
}

export interface IssueRow {
  type: string;
  severity: number;
  evidence: string;
  source: Source;
}

export interface LineSections {
  prosody: ValueRow[];
  relative: ValueRow[];
  quality: ValueRow[];
  /** Perceived quality (DNSMOS), null when no model scored the line. */
  mos: ValueRow[] | null;
  issues: IssueRow[];
  pauses: PauseRow[];
  ambience: ValueRow[];
  /** How the line sounds (the listening stage), null until it has run. */
  perception: PerceptionSection | null;
}

export interface PerceptionSection {
  rows: ValueRow[];
  /** Delivery labels and flags, each once, with what backs it. */
  labels: { type: string; source: Source }[];
  note: string;
  emphasis: string[];
  reactions: string[];
}

/** The listening stage's values of a line: emotion and its measures, delivery grade, labels, emphasis. */
export function perceptionSection(seg: AnalysisSegment): PerceptionSection | null {
  const p = seg.perception;
  if (!p) return null;
  const d = seg.delivery;
  const src = p.source;
  const labels = new Map<string, Source>();
  for (const l of p.delivery) labels.set(l, src);
  for (const f of d?.flags ?? []) if (!labels.has(f.type)) labels.set(f.type, f.source);
  return {
    rows: [
      row('perception.emotion', 'Emotion', p.emotion, p.emotion, src),
      row('perception.intensity', 'Intensity', p.intensity, fixed(p.intensity, 2, ''), src, '0–1'),
      row(
        'perception.valence',
        'Valence',
        p.valence,
        fixed(p.valence, 2, ''),
        src,
        'Negative (−1) to positive (+1)',
      ),
      row(
        'perception.arousal',
        'Arousal',
        p.arousal,
        fixed(p.arousal, 2, ''),
        src,
        'Low (0) to high (1) activation',
      ),
      row(
        'perception.confidence',
        'Confidence',
        p.confidence,
        fixed(p.confidence, 2, ''),
        src,
        'How sure the speaker sounds',
      ),
      row('perception.engagement', 'Engagement', p.engagement, fixed(p.engagement, 2, ''), src),
      row(
        'perception.take_quality',
        'Take quality',
        p.take_quality,
        fixed(p.take_quality, 2, ''),
        src,
        'Delivery and signal together',
      ),
      ...(d
        ? [
            row(
              'delivery.score',
              'Delivery',
              d.score,
              `${d.label} · ${fixed(d.score, 2, '')}`,
              src,
              'Delivery grade and score, 0–1',
            ),
          ]
        : []),
    ],
    labels: [...labels].map(([type, source]) => ({ type, source })),
    note: p.note,
    emphasis: seg.emphasis.length ? seg.emphasis.map((e) => e.word) : p.emphasis,
    reactions: p.reactions,
  };
}

const DASH = '—';

function fixed(x: number | null, digits: number, unit: string): string {
  if (x === null || !Number.isFinite(x)) return DASH;
  const s = x.toFixed(digits).replace(/^-/, '−');
  return unit ? `${s} ${unit}` : s;
}

function signed(x: number | null, digits: number, unit: string): string {
  if (x === null || !Number.isFinite(x)) return DASH;
  const s = Math.abs(x).toFixed(digits);
  const sign = Number(s) === 0 ? '±' : x > 0 ? '+' : '−';
  return `${sign}${s} ${unit}`;
}

function percent(x: number | null, digits: number): string {
  return x === null ? DASH : fixed(x * 100, digits, '%');
}

/** 1.12 → "1.12× (12% faster)". */
export function paceRatioText(ratio: number | null): string {
  if (ratio === null || !Number.isFinite(ratio)) return DASH;
  const change = Math.round((ratio - 1) * 100);
  const words = change === 0 ? 'usual pace' : `${Math.abs(change)}% ${change > 0 ? 'faster' : 'slower'}`;
  return `${ratio.toFixed(2)}× (${words})`;
}

function row(
  key: string,
  label: string,
  raw: ValueRow['raw'],
  text: string,
  source: Source | null,
  hint?: string,
): ValueRow {
  return { key, label, raw, text, source, ...(hint ? { hint } : {}) };
}

export function lineSections(seg: AnalysisSegment, baseline?: Baseline): LineSections {
  const p = seg.prosody;
  const q = seg.quality;
  const ps = p.source;
  const measured: Source | null = q.sources.includes('measured') ? 'measured' : (q.sources[0] ?? null);
  const usual = (x: number | null | undefined, digits: number, unit: string) =>
    x === null || x === undefined ? undefined : `The speaker’s usual value: ${fixed(x, digits, unit)}`;

  return {
    perception: perceptionSection(seg),
    prosody: [
      row(
        'pitch_hz',
        'Pitch (median F0)',
        p.pitch_hz,
        fixed(p.pitch_hz, 1, 'Hz'),
        ps,
        'Median F0 of the voiced frames, autocorrelation 75–600 Hz',
      ),
      row('pitch_range_st', 'Pitch range', p.pitch_range_st, fixed(p.pitch_range_st, 1, 'st'), ps),
      row(
        'pitch_variability_st',
        'Pitch variability',
        p.pitch_variability_st,
        fixed(p.pitch_variability_st, 1, 'st'),
        ps,
      ),
      row('pitch_perturbation', 'Jitter (local)', p.pitch_perturbation, percent(p.pitch_perturbation, 2), ps),
      row(
        'amplitude_perturbation',
        'Shimmer (local)',
        p.amplitude_perturbation,
        percent(p.amplitude_perturbation, 2),
        ps,
      ),
      row('hnr_db', 'Harmonics-to-noise', p.hnr_db, fixed(p.hnr_db, 1, 'dB'), ps),
      row(
        'energy_db',
        'Level',
        p.energy_db,
        fixed(p.energy_db, 1, 'dBFS'),
        ps,
        'RMS level of the line’s speech',
      ),
      row('energy_range_db', 'Level range', p.energy_range_db, fixed(p.energy_range_db, 1, 'dB'), ps),
      row(
        'voiced_ratio',
        'Voiced',
        p.voiced_ratio,
        percent(p.voiced_ratio, 0),
        ps,
        'Share of the speech frames that are voiced',
      ),
      row(
        'articulation_rate',
        'Articulation rate',
        p.articulation_rate,
        fixed(p.articulation_rate, 2, 'syll/s'),
        ps,
        'Syllables per second of speech, pauses excluded',
      ),
      row('pace_wpm', 'Pace', p.pace_wpm, fixed(p.pace_wpm, 0, 'wpm'), ps),
      row('hesitations', 'Hesitations', p.hesitations, String(p.hesitations), ps),
      row('longest_pause', 'Longest pause', p.longest_pause, fixed(p.longest_pause, 2, 's'), ps),
    ],
    relative: [
      row(
        'pace_vs_speaker',
        'Pace',
        p.pace_vs_speaker,
        paceRatioText(p.pace_vs_speaker),
        ps,
        usual(baseline?.articulation_rate, 2, 'syll/s'),
      ),
      row(
        'pitch_vs_speaker_st',
        'Pitch',
        p.pitch_vs_speaker_st,
        signed(p.pitch_vs_speaker_st, 1, 'st'),
        ps,
        usual(baseline?.pitch_hz, 1, 'Hz'),
      ),
      row(
        'energy_vs_speaker_db',
        'Level',
        p.energy_vs_speaker_db,
        signed(p.energy_vs_speaker_db, 1, 'dB'),
        ps,
        usual(baseline?.energy_db, 1, 'dBFS'),
      ),
      row(
        'pitch_range_vs_speaker_st',
        'Pitch range',
        p.pitch_range_vs_speaker_st,
        signed(p.pitch_range_vs_speaker_st, 1, 'st'),
        ps,
        usual(baseline?.pitch_range_st, 1, 'st'),
      ),
    ],
    quality: [
      row(
        'score',
        'Quality score',
        q.score,
        fixed(q.score, 2, ''),
        q.mos ? 'heard' : 'estimate',
        q.mos ? 'Follows DNSMOS OVRL' : 'Estimated from the measures (no quality model installed)',
      ),
      row('snr_db', 'Signal-to-noise', q.snr_db, fixed(q.snr_db, 1, 'dB'), measured),
      row(
        'noise_db',
        'Noise floor',
        q.noise_db,
        fixed(q.noise_db, 1, 'dBFS'),
        measured,
        'From the recording’s non-speech',
      ),
      row(
        'clipping_ratio',
        'Clipping',
        q.clipping_ratio,
        percent(q.clipping_ratio, 2),
        measured,
        'Share of clipped samples',
      ),
      row(
        'low_frequency_share_db',
        'Low-frequency share',
        q.low_frequency_share_db,
        fixed(q.low_frequency_share_db, 1, 'dB'),
        measured,
      ),
      row('wind_index', 'Wind index', q.wind_index, fixed(q.wind_index, 2, ''), measured),
      row('plosives', 'Plosives', q.plosives, String(q.plosives), measured),
      row('mic', 'Mic distance', q.mic, q.mic, measured),
    ],
    mos: q.mos
      ? [
          row('mos.sig', 'Speech (SIG)', q.mos.sig, fixed(q.mos.sig, 2, '/ 5'), q.mos.source),
          row('mos.bak', 'Background (BAK)', q.mos.bak, fixed(q.mos.bak, 2, '/ 5'), q.mos.source),
          row('mos.ovrl', 'Overall (OVRL)', q.mos.ovrl, fixed(q.mos.ovrl, 2, '/ 5'), q.mos.source),
          row('mos.p808', 'P.808', q.mos.p808, fixed(q.mos.p808, 2, '/ 5'), q.mos.source),
        ]
      : null,
    issues: q.issues.map((i) => ({
      type: i.type,
      severity: i.severity,
      evidence: i.evidence,
      source: i.source,
    })),
    pauses: p.pauses.map((x) => ({
      start: x.start,
      duration: x.duration,
      afterWord: x.after_word,
      filled: x.filled,
      sentenceEnd: x.sentence_end,
    })),
    ambience: [
      row(
        'ambience.sound',
        'Background',
        seg.ambience.sound.label,
        seg.ambience.sound.label ?? 'quiet',
        seg.ambience.source,
      ),
      row(
        'ambience.level_db',
        'Background level',
        seg.ambience.sound.level_db,
        fixed(seg.ambience.sound.level_db, 1, 'dBFS'),
        seg.ambience.source,
      ),
      row(
        'ambience.margin_db',
        'Speech over background',
        seg.ambience.sound.margin_db,
        fixed(seg.ambience.sound.margin_db, 1, 'dB'),
        seg.ambience.source,
      ),
      row(
        'ambience.competes',
        'Competes with speech',
        seg.ambience.competes,
        seg.ambience.competes ? 'yes' : 'no',
        seg.ambience.source,
      ),
    ],
  };
}
