import type { AnalysisSegment, AudienceEvent, Baseline, SpeakerProfile } from '../../../shared/schemas/analysis';

/**
 * Each speaker's profile over the recording (README "Speaker profiles"): totals from the measures, means of
 * the per-line dimensions weighted by speech seconds, distributions of emotions (share of speech seconds)
 * and delivery labels (lines), and a trajectory with one point per line. `summary` is filled by summary.ts.
 */
const r = (x: number, digits: number) => Math.round(x * 10 ** digits) / 10 ** digits;

function speechSeconds(s: AnalysisSegment): number {
  return Math.max(0, s.speech_end - s.speech_start);
}

/** Lines in time order (start, then id). */
export function inTimeOrder(segments: ReadonlyArray<AnalysisSegment>): AnalysisSegment[] {
  return [...segments].sort((a, b) => a.start - b.start || a.id - b.id);
}

export function speakerProfiles(
  segments: ReadonlyArray<AnalysisSegment>,
  baselines: Readonly<Record<string, Baseline>>,
  events: ReadonlyArray<AudienceEvent>,
): Record<string, SpeakerProfile> {
  const ordered = inTimeOrder(segments);
  const out: Record<string, SpeakerProfile> = {};
  const speakers = [...new Set(ordered.map((s) => s.speaker))];
  for (const speaker of speakers) {
    const own = ordered.filter((s) => s.speaker === speaker);
    let turns = 0;
    ordered.forEach((s, i) => {
      if (s.speaker === speaker && (i === 0 || ordered[i - 1]!.speaker !== speaker)) turns++;
    });
    const talk = own.reduce((sum, s) => sum + speechSeconds(s), 0);
    const heard = own.filter((s) => s.perception && s.delivery);
    const weight = heard.reduce((sum, s) => sum + speechSeconds(s), 0);
    const mean = (pick: (s: AnalysisSegment) => number) =>
      weight > 0 ? r(heard.reduce((sum, s) => sum + pick(s) * speechSeconds(s), 0) / weight, 2) : 0;
    const emotions: Record<string, number> = {};
    for (const s of heard) emotions[s.perception!.emotion] = (emotions[s.perception!.emotion] ?? 0) + speechSeconds(s);
    for (const k of Object.keys(emotions)) emotions[k] = weight > 0 ? r(emotions[k]! / weight, 3) : 0;
    const labels: Record<string, number> = {};
    for (const s of heard) for (const l of s.perception!.delivery) labels[l] = (labels[l] ?? 0) + 1;
    const fillers = own.reduce((n, s) => n + s.prosody.pauses.filter((p) => p.filled).length, 0);
    const reactions: Record<string, number> = {};
    for (const e of events) if (e.speaker === speaker) reactions[e.type] = (reactions[e.type] ?? 0) + 1;
    const base = baselines[speaker];
    out[speaker] = {
      talk_seconds: r(talk, 2),
      turns,
      hesitations: own.reduce((n, s) => n + s.prosody.hesitations, 0),
      trajectory: heard.map((s) => ({
        t: r((s.start + s.end) / 2, 3),
        start: s.start,
        end: s.end,
        segment_id: s.id,
        emotion: s.perception!.emotion,
        valence: s.perception!.valence,
        arousal: s.perception!.arousal,
        confidence: s.perception!.confidence,
        engagement: s.perception!.engagement,
        energy_db: s.prosody.energy_db,
        score: s.delivery!.score,
      })),
      confidence: mean((s) => s.perception!.confidence),
      engagement: mean((s) => s.perception!.engagement),
      valence: mean((s) => s.perception!.valence),
      arousal: mean((s) => s.perception!.arousal),
      emotions,
      delivery_labels: labels,
      articulation_rate: base?.articulation_rate ?? null,
      pitch_hz: base?.pitch_hz ?? null,
      pitch_range_st: base?.pitch_range_st ?? null,
      fillers_per_minute: talk > 0 ? r((fillers / talk) * 60, 2) : 0,
      reactions,
      summary: '',
    };
  }
  return out;
}

