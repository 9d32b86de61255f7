import { z } from 'zod';
import { Timestamp, Uuid } from './common';
import { ProjectSpeaker } from './projects';
import { SpeakerMapEntry } from './sessions';

/**
 * The Analysis document of INTERFACE.md (`GET /v1/speech/transcriptions/{id}/intelligence`): one schema for
 * the service's validation, the OpenAPI document and the studio's client. Times are seconds from the start
 * of the recording; `_db` decibels (dBFS for levels), `_hz` hertz, `_st` semitones.
 */

/**
 * What backs a value: `measured` read from the signal by DSP; `heard` produced by a model that listened to
 * the audio (YAMNet, DNSMOS); `located` a position derived from word alignment; `estimate` inferred by
 * rules from other values, nothing listened.
 */
export const SOURCES = ['measured', 'heard', 'located', 'estimate'] as const;
export const Source = z.enum(SOURCES).meta({ id: 'AnalysisSource' });

export const ANALYSIS_STATUSES = ['none', 'queued', 'running', 'complete', 'failed', 'unavailable'] as const;
export const AnalysisStatus = z.enum(ANALYSIS_STATUSES);

const num = z.number();
const nullableNum = z.number().nullable();
const span = { start: num, end: num };

export const Pause = z
  .object({
    ...span,
    duration: num,
    after_word: z.string().meta({ description: 'The word before the pause ("" at the start of a line)' }),
    filled: z.boolean().meta({ description: 'A filler word or a voiced, steady, non-lexical stretch (uh, um)' }),
    sentence_end: z.boolean().meta({ description: 'The pause follows a sentence end' }),
  })
  .meta({ id: 'Pause' });

export const Prosody = z
  .object({
    energy_db: nullableNum.meta({ description: 'RMS level of the line’s speech, dBFS' }),
    energy_range_db: nullableNum.meta({ description: 'Spread of the frame levels over the speech, dB' }),
    voiced_ratio: num.meta({ description: 'Share of the speech frames that are voiced, 0–1' }),
    pitch_hz: nullableNum.meta({ description: 'Median F0 of the voiced frames (autocorrelation, 75–600 Hz); null when nothing is voiced' }),
    pitch_range_st: nullableNum,
    pitch_variability_st: nullableNum,
    pitch_perturbation: nullableNum.meta({ description: 'Jitter (local), a fraction' }),
    amplitude_perturbation: nullableNum.meta({ description: 'Shimmer (local), a fraction' }),
    hnr_db: nullableNum.meta({ description: 'Harmonics-to-noise ratio (cross-correlation), dB' }),
    pauses: z.array(Pause),
    articulation_rate: nullableNum.meta({ description: 'Syllables per second of speech, pauses excluded (dictionary syllables of the recognized words; docs/analysis.md, "Pace")' }),
    pace_wpm: nullableNum.meta({ description: 'Words per minute over the line’s speech span' }),
    hesitations: z.number().int(),
    longest_pause: num,
    pace_vs_speaker: nullableNum,
    pitch_vs_speaker_st: nullableNum,
    energy_vs_speaker_db: nullableNum,
    pitch_range_vs_speaker_st: nullableNum,
    source: Source,
  })
  .meta({ id: 'Prosody' });

export const QualityIssue = z
  .object({
    type: z.string().meta({ description: 'e.g. clipping, hum, noise, wind, reverb, off_mic, plosive, low_level' }),
    severity: z.number().meta({ description: '0–1' }),
    evidence: z.string().meta({ description: 'The measure, its value and threshold' }),
    source: Source,
  })
  .meta({ id: 'QualityIssue' });

export const Mos = z
  .object({
    sig: num,
    bak: num,
    ovrl: num,
    p808: num,
    source: z.literal('heard'),
  })
  .meta({ id: 'Mos', description: 'DNSMOS P.835 (SIG, BAK, OVRL) and P.808 scores, each held to the 1–5 scale (clamped: the model can map outside it)' });

export const Quality = z
  .object({
    snr_db: nullableNum,
    noise_db: nullableNum.meta({ description: 'Noise floor from the recording’s non-speech, dBFS' }),
    clipping_ratio: num,
    low_frequency_share_db: nullableNum,
    wind_index: num,
    plosives: z.number().int(),
    mic: z.enum(['near', 'medium', 'far']),
    mos: Mos.nullable().meta({ description: 'Perceived quality; null when the DNSMOS model is not installed' }),
    score: num.meta({ description: '0–1; follows DNSMOS OVRL when it ran, otherwise estimated from the measures' }),
    issues: z.array(QualityIssue),
    sources: z.array(Source).meta({ description: '`measured` for the signal measures, plus `heard` when DNSMOS scored the line' }),
  })
  .meta({ id: 'Quality' });

export const AmbienceLayer = z.object({ label: z.string(), score: num, source: Source }).meta({ id: 'AmbienceLayer' });

export const Ambience = z
  .object({
    layers: z.array(AmbienceLayer).meta({ description: 'Background sounds heard under the line, strongest first' }),
    sound: z
      .object({
        label: z.string().nullable(),
        level_db: nullableNum.meta({ description: 'Background level under the line, dBFS' }),
        margin_db: nullableNum.meta({ description: 'Speech level minus background level, dB' }),
      })
      .meta({ id: 'AmbienceSound' }),
    competes: z.boolean().meta({ description: 'The background is within the documented margin of the speech level' }),
    source: Source.meta({ description: 'What backs the level, margin and competes (measured); each layer has its own source (heard)' }),
  })
  .meta({ id: 'Ambience' });

/**
 * Emotions the listeners report (docs/analysis.md, "Fields"): `neutral` unless the measures lean clearly one way;
 * `calm` low arousal, `sad` low arousal with negative valence, `warm` positive valence at moderate arousal,
 * `excited` high arousal with non-negative valence, `tense` high arousal with negative valence, `amused`
 * laughter on or right after the line, `uncertain` hesitant with low confidence.
 */
export const EMOTIONS = ['neutral', 'calm', 'warm', 'excited', 'amused', 'tense', 'sad', 'uncertain'] as const;
export const Emotion = z.enum(EMOTIONS).meta({ id: 'Emotion' });

/** How a line was delivered, each relative to the speaker's own baselines (docs/analysis.md, "Fields"). */
export const DELIVERY_LABELS = ['rushed', 'slow', 'flat', 'emphatic', 'hesitant', 'mumbled', 'trailing_off', 'quiet'] as const;
export const DeliveryLabel = z.enum(DELIVERY_LABELS).meta({ id: 'DeliveryLabel' });

export const DELIVERY_GRADES = ['weak', 'hesitant', 'good', 'great'] as const;

export const Perception = z
  .object({
    emotion: Emotion,
    intensity: num.meta({ description: 'How strongly the emotion shows, 0–1 (distance from neutral valence and arousal)' }),
    valence: num.meta({ description: 'Negative (−1) to positive (+1)' }),
    arousal: num.meta({ description: 'Low (0) to high (1) activation' }),
    confidence: num.meta({ description: 'How sure the speaker sounds, 0–1 (not the listener’s certainty)' }),
    engagement: num.meta({ description: 'How engaged and lively the speaker sounds, 0–1' }),
    take_quality: num.meta({ description: 'How usable the take is, 0–1: delivery and signal quality together' }),
    delivery: z.array(DeliveryLabel).meta({ description: 'Delivery labels, each relative to the speaker’s baselines' }),
    reactions: z.array(z.string()).meta({ description: 'Audience events overlapping the line or starting within 2 s after it (applause, laughter, cheering)' }),
    emphasis: z.array(z.string()).meta({ description: 'The emphasised words, in order (see `emphasis[]` for their times)' }),
    audio_issues: z.array(z.string()).meta({ description: 'Types of the line’s quality issues (e.g. clipping, hum, off_mic)' }),
    note: z.string().meta({ description: 'One plain sentence an editor can act on' }),
    ...span,
    source: Source.meta({ description: '`estimate` from the built-in listener (rules over the measures); `heard` only from a model that listened' }),
  })
  .meta({ id: 'Perception' });

export const DeliveryFlag = z
  .object({
    type: z.string().meta({ description: 'A delivery label (estimate), `long_pause` (measured) or `restart` (located)' }),
    source: Source,
  })
  .meta({ id: 'DeliveryFlag' });

export const Delivery = z
  .object({
    score: num.meta({ description: '0–1; docs/analysis.md, "Fields"' }),
    label: z.enum(DELIVERY_GRADES),
    flags: z.array(DeliveryFlag),
  })
  .meta({ id: 'Delivery' });

export const Emphasis = z
  .object({
    word_index: z.number().int().meta({ description: 'Index into the line’s words' }),
    word: z.string(),
    ...span,
    strength: num.meta({ description: '0–1, how far the word stands out (pitch, level or length)' }),
    source: Source,
  })
  .meta({ id: 'Emphasis' });

export const AnalysisSegment = z
  .object({
    id: z.number().int(),
    speaker: z.string(),
    ...span,
    speech_start: num,
    speech_end: num,
    text: z.string(),
    prosody: Prosody,
    quality: Quality,
    ambience: Ambience,
    perception: Perception.nullable().meta({ description: 'Null until the listening stage has run' }),
    delivery: Delivery.nullable().meta({ description: 'Null until the listening stage has run' }),
    emphasis: z.array(Emphasis),
  })
  .meta({ id: 'AnalysisSegment' });

export const AUDIENCE_EVENT_TYPES = ['applause', 'laughter', 'cheering', 'music'] as const;

export const AudienceEvent = z
  .object({
    type: z.enum(AUDIENCE_EVENT_TYPES),
    ...span,
    speaker: z.string().nullable().meta({ description: 'Who had the floor (the last speaker before or during it)' }),
    during_speech: z.boolean(),
    confidence: num,
    sources: z.array(Source),
  })
  .meta({ id: 'AudienceEvent' });

export const PaceShiftEvent = z
  .object({
    type: z.literal('pace_shift'),
    at: num,
    ...span,
    speaker: z.string(),
    change: num.meta({ description: 'Relative change of articulation rate, e.g. -0.3 = 30% slower' }),
    direction: z.enum(['faster', 'slower']),
    source: Source,
  })
  .meta({ id: 'PaceShiftEvent' });

export const AnalysisEvent = z.union([AudienceEvent, PaceShiftEvent]).meta({ id: 'AnalysisEvent' });

export const MusicSpan = z
  .object({ ...span, label: z.string(), score: num, during_speech: z.boolean(), source: Source })
  .meta({ id: 'MusicSpan' });

export const AmbienceSpan = z.object({ ...span, label: z.string(), score: num }).meta({ id: 'AmbienceSpan' });

export const Condition = z
  .object({
    type: z.string().meta({ description: 'hum, clipping, noise, wind, reverb, off_mic' }),
    severity: num,
    evidence: z.string(),
    ranges: z.array(z.object(span)),
    source: Source,
  })
  .meta({ id: 'Condition' });

export const Baseline = z
  .object({
    pitch_hz: nullableNum,
    pitch_range_st: nullableNum,
    articulation_rate: nullableNum,
    energy_db: nullableNum,
    pitch_perturbation: nullableNum,
    energy_range_db: nullableNum,
    lines: z.number().int(),
    speech_seconds: num,
  })
  .meta({ id: 'Baseline' });

export const TrajectoryPoint = z
  .object({
    t: num.meta({ description: 'The line’s midpoint' }),
    ...span,
    segment_id: z.number().int(),
    emotion: Emotion,
    valence: num,
    arousal: num,
    confidence: num,
    engagement: num,
    energy_db: nullableNum,
    score: num.meta({ description: 'The line’s delivery score' }),
  })
  .meta({ id: 'TrajectoryPoint' });

export const SpeakerProfile = z
  .object({
    talk_seconds: num.meta({ description: 'Seconds of speech (each line’s speech span)' }),
    turns: z.number().int().meta({ description: 'Runs of consecutive lines by this speaker' }),
    hesitations: z.number().int(),
    trajectory: z.array(TrajectoryPoint).meta({ description: 'One point per line, in time order' }),
    confidence: num.meta({ description: 'Mean over lines, weighted by speech seconds' }),
    engagement: num,
    valence: num,
    arousal: num,
    emotions: z.record(z.string(), num).meta({ description: 'Share of speech seconds per emotion (sums to 1)' }),
    delivery_labels: z.record(z.string(), z.number().int()).meta({ description: 'Lines carrying each delivery label' }),
    articulation_rate: nullableNum.meta({ description: 'Syllables per second (the speaker’s baseline)' }),
    pitch_hz: nullableNum,
    pitch_range_st: nullableNum,
    fillers_per_minute: num.meta({ description: 'Filled pauses per minute of speech' }),
    reactions: z.record(z.string(), z.number().int()).meta({ description: 'Audience events while this speaker had the floor, by type' }),
    summary: z.string(),
  })
  .meta({ id: 'SpeakerProfile' });

export const MOMENT_TYPES = ['select', 'unusable', 'trim'] as const;

export const Moment = z
  .object({
    id: z.string().meta({ description: 'Stable across runs of the same transcript, e.g. `select-12`, `trim-3-lead`' }),
    type: z.enum(MOMENT_TYPES),
    ...span,
    speaker: z.string(),
    score: num.meta({ description: '0–1: take quality for select, severity for unusable, how sure for trim' }),
    reason: z.string(),
    segment_ids: z.array(z.number().int()),
    text: z.string().optional().meta({ description: 'On select: the words spoken in the span' }),
    sentence_complete: z.boolean().optional().meta({ description: 'On select: the span starts at a sentence start and ends at a sentence end' }),
  })
  .meta({ id: 'Moment' });

export const WatchOut = z
  .object({
    kind: z.string().meta({ description: 'The kind of problem, e.g. clipping, hum, unusable, hesitant, rushed, overlap' }),
    text: z.string().meta({ description: 'The same sentence as the matching `watch_outs` entry: `<label> (<detail>): <ranges>.`' }),
    ranges: z.array(z.object(span)),
    // Watch-outs: the sentence's parts, so a view that shows the kind and the ranges itself writes each once.
    label: z.string().optional().meta({ description: 'The kind as the sentence names it, e.g. "Reverb", "Unusable lines", "Rushed delivery" (absent in analyses before 1.2.0)' }),
    detail: z.string().optional().meta({ description: 'How much: "severity 0.56", "3 lines", "2": the sentence without its label and ranges (absent before 1.2.0)' }),
  })
  .meta({ id: 'WatchOut' });

export const AnalysisSummary = z
  .object({
    overview: z.string(),
    speakers: z.array(z.object({ speaker: z.string(), summary: z.string() })),
    watch_outs: z.array(z.string()).meta({
      description:
        'Each names a kind of problem once and its time ranges as they are: m:ss–m:ss (start second to the end rounded up) from 2 s, m:ss.t–m:ss.t under 2 s, one time m:ss.t for a point; the first 6, then how many more',
    }),
    watch_out_items: z
      .array(WatchOut)
      .meta({ description: 'The watch-outs with their kind and time ranges as numbers, in the same order as `watch_outs`' }),
  })
  .meta({ id: 'AnalysisSummary' });

export const Intelligence = z
  .object({
    status: AnalysisStatus,
    stage: z
      .string()
      .meta({ description: 'The step running now: decoding, speech, events, conditions, prosody, baselines, quality, listening, speakers, moments, summary (docs/analysis.md); `complete` when finished' }),
    progress: num.meta({ description: '0–1, never decreases within a run' }),
    run_id: z.string().nullable(),
    version: z.string().meta({ description: 'Semantic version of the analysis method' }),
    error: z.string().nullable().meta({ description: 'Why the run failed, for the user' }),
    duration: num,
    segments: z.array(AnalysisSegment),
    events: z.array(AnalysisEvent),
    speakers: z.record(z.string(), SpeakerProfile),
    moments: z.array(Moment),
    recovered: z.array(z.unknown()),
    music: z.array(MusicSpan),
    ambience_profile: z.array(AmbienceSpan),
    baselines: z.record(z.string(), Baseline),
    coverage: z.object({
      segments: z.number().int().meta({ description: 'Lines in the transcript' }),
      measured: z.number().int().meta({ description: 'Lines measured so far' }),
      listened: z.number().int().meta({ description: 'Lines a model listened to: DNSMOS scored them, or a model-based listener heard them (never the rule-based estimate)' }),
    }),
    conditions: z.array(Condition),
    summary: AnalysisSummary,
    timings: z
      .object({
        total: num.meta({ description: 'Seconds of processing (wall clock) spent on this run, summed over resumes' }),
        stages: z.record(z.string(), num),
      })
      .meta({ id: 'AnalysisTimings' }),
    warnings: z.array(z.string()).meta({ description: 'What this run could not analyse and why (e.g. a model that is not installed)' }),
    last_failure: z
      .object({ run_id: z.string(), error: z.string(), failed_at: Timestamp })
      .nullable()
      .meta({ description: 'Set when a newer run failed and this document is the last complete one' }),
    started_at: Timestamp.nullable(),
    completed_at: Timestamp.nullable(),
  })
  .meta({ id: 'Intelligence' });

/** The response of `GET /v1/speech/transcriptions/{id}/intelligence`. */
export const AnalysisDocument = z
  .object({
    id: Uuid.meta({ description: 'The session id' }),
    intelligence: Intelligence,
    speaker_map: z.record(z.string(), SpeakerMapEntry),
    project: z.object({ id: Uuid, key: z.string(), name: z.string(), speakers: z.array(ProjectSpeaker) }),
  })
  .meta({ id: 'AnalysisDocument' });

/** One analysis run, as `POST …/intelligence` returns it and `GET …/intelligence/runs` lists it. */
export const AnalysisRun = z
  .object({
    run_id: z.string(),
    session_id: Uuid,
    status: z.enum(['queued', 'running', 'complete', 'failed', 'unavailable']),
    stage: z.string(),
    progress: num,
    version: z.string(),
    error: z.string().nullable(),
    created_at: Timestamp,
    started_at: Timestamp.nullable(),
    completed_at: Timestamp.nullable(),
  })
  .meta({ id: 'AnalysisRun' });

export const AnalysisRunStarted = AnalysisRun.extend({
  created: z.boolean().meta({ description: 'False when a run already queued or running was returned instead of a new one' }),
}).meta({ id: 'AnalysisRunStarted' });

export const AnalysisRunList = z.object({ data: z.array(AnalysisRun) }).meta({ id: 'AnalysisRunList' });

export type Source = z.infer<typeof Source>;
export type AnalysisStatus = z.infer<typeof AnalysisStatus>;
export type Pause = z.infer<typeof Pause>;
export type Prosody = z.infer<typeof Prosody>;
export type QualityIssue = z.infer<typeof QualityIssue>;
export type Mos = z.infer<typeof Mos>;
export type Quality = z.infer<typeof Quality>;
export type Ambience = z.infer<typeof Ambience>;
export type Perception = z.infer<typeof Perception>;
export type Delivery = z.infer<typeof Delivery>;
export type Emphasis = z.infer<typeof Emphasis>;
export type Emotion = z.infer<typeof Emotion>;
export type DeliveryLabel = z.infer<typeof DeliveryLabel>;
export type DeliveryFlag = z.infer<typeof DeliveryFlag>;
export type TrajectoryPoint = z.infer<typeof TrajectoryPoint>;
export type WatchOut = z.infer<typeof WatchOut>;
export type AnalysisSegment = z.infer<typeof AnalysisSegment>;
export type AudienceEvent = z.infer<typeof AudienceEvent>;
export type PaceShiftEvent = z.infer<typeof PaceShiftEvent>;
export type AnalysisEvent = z.infer<typeof AnalysisEvent>;
export type MusicSpan = z.infer<typeof MusicSpan>;
export type AmbienceSpan = z.infer<typeof AmbienceSpan>;
export type Condition = z.infer<typeof Condition>;
export type Baseline = z.infer<typeof Baseline>;
export type SpeakerProfile = z.infer<typeof SpeakerProfile>;
export type Moment = z.infer<typeof Moment>;
export type AnalysisSummary = z.infer<typeof AnalysisSummary>;
export type Intelligence = z.infer<typeof Intelligence>;
export type AnalysisDocument = z.infer<typeof AnalysisDocument>;
export type AnalysisRun = z.infer<typeof AnalysisRun>;
