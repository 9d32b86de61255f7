import type { Ambience, AnalysisSegment, AudienceEvent, Baseline, Condition, Moment, Mos, SpeakerProfile } from '../../shared/schemas/analysis';
import type { MeasuredQuality } from '../speech/quality/line-quality';
import type { MeasuredProsody as LineSignalMeasures } from '../speech/prosody/measure';
import type { Span } from '../speech/types';
import { SAMPLE_RATE } from '../speech/types';
import { frameLevels, frameRange, type LevelTrack } from '../dsp/levels';
import { quantile } from '../dsp/stats';
import type { TagFrames } from '../speech/events/tagger';
import { analysePauses, type PitchFrames } from '../speech/delivery/pauses';
import { articulationRate, linePace, speakerCalibratedSyllables, type SyllableCounter } from '../speech/delivery/pace';
import { syllableNuclei } from '../speech/delivery/nuclei';
import { relativeToSpeaker, speakerBaselines, type BaselineLine } from '../speech/delivery/baselines';
import { paceAgainstSpeaker } from '../speech/delivery/pace-vs-speaker';
import { paceShifts } from '../speech/delivery/pace-shift';
import { PART, type AudiencePart } from './document';
import type { AnalysisMessage, AnalysisRequest, LineInput } from './protocol';
import type { Listener } from '../speech/perception/listener';
import { measureWords, type WordMeasure } from '../speech/perception/words';
import { isPunctuated, sentenceEnds } from '../speech/perception/sentences';
import { hesitationsPerMinute } from '../speech/perception/labels';
import { speakerProfiles } from '../speech/perception/profiles';
import { findMoments, type LineWords } from '../speech/perception/moments';
import { spoilers } from '../speech/perception/verdict';
import { writeSummary } from '../speech/perception/summary';
import type { StageName } from './stages';

/** The signal measures of one line that do not depend on the speaker's baseline (no track where a line has no voice). */
export type MeasuredProsody = Omit<LineSignalMeasures, 'track'> & { track: PitchFrames | null };


/** The noise floor of the recording, as the quality measures describe it (JSON, stored as a part). */
export interface NoiseLike {
  noise_db: number | null;
}

/**
 * The algorithms and engines the analysis calls, behind one seam: the worker wires the real ones
 * (speech/prosody, speech/quality, speech/events, Silero VAD), tests may pass others. Model-backed engines
 * return null when their model is not installed, after adding a warning saying so.
 */
export interface AnalysisToolkit {
  decode(signal?: AbortSignal): Promise<Float32Array>;
  detectSpeech(pcm: Float32Array, signal?: AbortSignal): Promise<Span[]>;
  /** Audio-event scores over time (YAMNet); null when the tagger is not installed. Kept in memory only. */
  tag(pcm: Float32Array, signal?: AbortSignal): Promise<TagFrames | null>;
  audience(tags: TagFrames, speech: Span[], lines: LineInput[], levels: LevelTrack, duration: number): AudiencePart;
  /** The recording's noise floor and spectrum, JSON-safe (stored as a part). */
  noise(pcm: Float32Array, speech: Span[]): NoiseLike;
  /** One line's signal-quality measures, JSON-safe (stored with the conditions). */
  lineQuality(pcm: Float32Array, line: Span, speech: Span[], noise: NoiseLike): unknown;
  conditions(pcm: Float32Array, speech: Span[], lines: Span[], noise: NoiseLike, lineQualities: unknown[]): Condition[];
  /** The measured `Quality` fields of a line from its stored measures. */
  quality(lineQuality: unknown): MeasuredQuality;
  prosody(pcm: Float32Array, line: Span, speech: Span[]): MeasuredProsody;
  perceivedQuality(pcm: Float32Array, signal?: AbortSignal): Promise<Mos | null>;
  qualityScore(measured: MeasuredQuality, mos: Mos | null): number;
  ambience(tags: TagFrames | null, line: Span, speech: Span[], levels: LevelTrack): Ambience;
  syllables(): SyllableCounter;
  /** How each line sounds (speech/perception): a model-based listener when one is installed, else the built-in estimate. */
  listener(): Listener;
  /** What could not be analysed and why, gathered as engines load. */
  readonly warnings: string[];
}

/** One line's measures kept between the prosody and quality stages (stored as the `measures` part). */
export interface LineMeasure {
  id: number;
  speaker: string;
  start: number;
  end: number;
  text: string;
  speech_start: number;
  speech_end: number;
  speech: Span[];
  prosody: Omit<AnalysisSegment['prosody'], 'pace_vs_speaker' | 'pitch_vs_speaker_st' | 'energy_vs_speaker_db' | 'pitch_range_vs_speaker_st' | 'source'>;
  /** Dictionary syllables of the recognized words (what the line's stored articulation_rate counts). */
  syllables: number;
  /**
   * Syllable nuclei read from the signal over the articulation (speech span less pauses; delivery/nuclei.ts);
   * absent in runs stored before it was measured. Kept for withSignalPace, which the published rate does not use yet.
   */
  nuclei?: number;
  articulation_seconds: number;
  /** Per-word pitch and level for emphasis, endings and sentence ends (absent in runs stored before 1.1). */
  words?: WordMeasure[];
  /** Indices of the words that end a sentence (speech/perception/sentences.ts). */
  sentence_ends?: number[];
}

/** Silence for pause detection: 6 dB over the noise floor, and never more than 35 dB under the line's loud frames. */
const SILENCE_OVER_NOISE_DB = 6;
const SILENCE_UNDER_PEAK_DB = 35;
/** Lines sent to the parent per message in the quality stage (each message is one transaction). */
const LINE_BATCH = 1;
/** Lines per message in the listening stage: it is fast, so fewer, larger transactions. */
const LISTEN_BATCH = 16;

/** Speech spans clipped to a line. */
export function speechWithin(speech: Span[], line: Span): Span[] {
  const out: Span[] = [];
  for (const s of speech) {
    const start = Math.max(s.start, line.start);
    const end = Math.min(s.end, line.end);
    if (end > start) out.push({ start, end });
  }
  return out;
}

function round(x: number | null, digits: number): number | null {
  return x === null ? null : Math.round(x * 10 ** digits) / 10 ** digits;
}

function measureLine(
  pcm: Float32Array,
  levels: LevelTrack,
  line: LineInput,
  speech: Span[],
  noise: NoiseLike,
  kit: AnalysisToolkit,
  dictionary: SyllableCounter,
  punctuated: boolean,
): LineMeasure {
  const span = { start: line.start, end: line.end };
  const within = speechWithin(speech, span);
  const measured = kit.prosody(pcm, span, within);
  const loud = quantile(levels.db.subarray(...frameRange(levels, line.start, line.end)), 0.95) ?? -120;
  const silenceDb = Math.max((noise.noise_db ?? -120) + SILENCE_OVER_NOISE_DB, loud - SILENCE_UNDER_PEAK_DB);
  const words = measureWords(line.words, levels, measured.track, dictionary);
  // Sentence ends from the transcript's punctuation where the recognizer gives it, else a pause after a pitch fall.
  const ends = sentenceEnds(words, punctuated);
  const pauses = analysePauses({ line: span, words: line.words, levels, pitch: measured.track, silenceDb, sentenceEnds: new Set(ends) });
  const pace = linePace(line.words, dictionary, pauses);
  // Nuclei on voiced frames of the line's own pitch track, outside its pauses (a filled pause is no syllable).
  const nuclei = measured.track
    ? syllableNuclei(pcm, SAMPLE_RATE, pauses.speech_start, pauses.speech_end, measured.track).filter((t) => !pauses.pauses.some((p) => t >= p.start && t <= p.end)).length
    : 0;
  return {
    id: line.id,
    speaker: line.speaker,
    start: line.start,
    end: line.end,
    text: line.text,
    speech_start: pauses.speech_start,
    speech_end: pauses.speech_end,
    speech: within,
    prosody: {
      energy_db: round(measured.energy_db, 2),
      energy_range_db: round(measured.energy_range_db, 2),
      voiced_ratio: round(measured.voiced_ratio, 3)!,
      pitch_hz: round(measured.pitch_hz, 2),
      pitch_range_st: round(measured.pitch_range_st, 2),
      pitch_variability_st: round(measured.pitch_variability_st, 2),
      pitch_perturbation: round(measured.pitch_perturbation, 5),
      amplitude_perturbation: round(measured.amplitude_perturbation, 5),
      hnr_db: round(measured.hnr_db, 2),
      pauses: pauses.pauses,
      articulation_rate: pace.articulation_rate,
      pace_wpm: pace.pace_wpm,
      hesitations: pauses.hesitations,
      longest_pause: pauses.longest_pause,
    },
    syllables: pace.syllables,
    nuclei,
    articulation_seconds: pace.articulation_seconds,
    words,
    sentence_ends: ends,
  };
}

/**
 * The lines with their pace read from the signal: syllables are the signal's nuclei scaled to the speaker's
 * dictionary syllables per nucleus (delivery/pace.ts, calibratedSyllables), and the articulation rate is
 * recomputed from them. NOT applied by runAnalysis: the published articulation_rate, baselines and pace shifts
 * count the recognized words' dictionary syllables, because this combination read bench/pace's tempo changes no
 * better at 0.8–1.3× and a held-out line sped 1.3× stopped reading rushed; pace_vs_speaker reads both counts
 * another way (delivery/pace-vs-speaker.ts; docs/analysis.md, "Pace"). Kept, with its test, as the candidate the
 * clip bench scores ("shipped" there).
 */
export function withSignalPace(measures: LineMeasure[]): LineMeasure[] {
  const syllables = speakerCalibratedSyllables(measures);
  return measures.map((m, i) => ({
    ...m,
    syllables: syllables[i]!,
    prosody: { ...m.prosody, articulation_rate: m.nuclei === undefined && syllables[i] === m.syllables ? m.prosody.articulation_rate : articulationRate(syllables[i]!, m.articulation_seconds) },
  }));
}

/**
 * The analysis of one recording, stage by stage (stages.ts), reporting through `emit`. Stages whose part is
 * already stored are skipped and lines already published are not measured again, so a resumed run picks up
 * where the last attempt stopped. Runs inside the analysis process.
 */
export async function runAnalysis(
  request: AnalysisRequest,
  kit: AnalysisToolkit,
  emit: (message: AnalysisMessage) => void,
  signal?: AbortSignal,
): Promise<void> {
  const parts = { ...request.parts };
  const has = (name: string) => Object.prototype.hasOwnProperty.call(parts, name);
  const stage = (name: StageName, fraction: number) => emit({ type: 'stage', stage: name, fraction });
  const save = (name: string, value: unknown) => {
    parts[name] = value;
    emit({ type: 'part', name, value });
  };
  const lines = request.lines;
  const done = new Set(request.doneLines);

  stage('decoding', 0);
  const pcm = await kit.decode(signal);
  const levels = frameLevels(pcm, SAMPLE_RATE);
  const duration = pcm.length / SAMPLE_RATE;
  stage('decoding', 1);

  stage('speech', 0);
  if (!has(PART.speech)) save(PART.speech, await kit.detectSpeech(pcm, signal));
  const speech = parts[PART.speech] as Span[];
  stage('speech', 1);

  // Tags are needed by the events stage and, per line, by the quality stage: recomputed after a resume.
  const remaining = lines.filter((l) => !done.has(l.id));
  stage('events', 0);
  const tags = !has(PART.audience) || remaining.length > 0 ? await kit.tag(pcm, signal) : null;
  if (!has(PART.audience)) save(PART.audience, tags ? kit.audience(tags, speech, lines, levels, duration) : { events: [], music: [], ambience_profile: [] });
  stage('events', 1);

  stage('conditions', 0);
  if (!has(PART.noise)) {
    // Applause, laughter and music between lines are events, not the recording's noise floor.
    const audience = parts[PART.audience] as AudiencePart;
    const heard = [...audience.events, ...audience.music].map((e) => ({ start: e.start, end: e.end }));
    save(PART.noise, kit.noise(pcm, [...speech, ...heard]));
  }
  const noise = parts[PART.noise] as NoiseLike;
  if (!has(PART.lineQuality)) {
    const measured: unknown[] = [];
    for (const [i, line] of lines.entries()) {
      signal?.throwIfAborted();
      measured.push(kit.lineQuality(pcm, line, speechWithin(speech, line), noise));
      stage('conditions', ((i + 1) / lines.length) * 0.9);
      if (i % 16 === 15) await new Promise((r) => setImmediate(r));
    }
    save(PART.lineQuality, measured);
  }
  const lineQualities = parts[PART.lineQuality] as unknown[];
  if (!has(PART.conditions)) save(PART.conditions, kit.conditions(pcm, speech, lines, noise, lineQualities));
  stage('conditions', 1);

  const dictionary = kit.syllables();
  const punctuated = isPunctuated(lines);
  if (!has(PART.measures)) {
    const measures: LineMeasure[] = [];
    for (const [i, line] of lines.entries()) {
      signal?.throwIfAborted();
      measures.push(measureLine(pcm, levels, line, speech, noise, kit, dictionary, punctuated));
      stage('prosody', (i + 1) / lines.length);
      // Yield now and then so an abort or a terminate can land.
      if (i % 16 === 15) await new Promise((r) => setImmediate(r));
    }
    save(PART.measures, measures);
  }
  stage('prosody', 1);
  // The published articulation rate counts the dictionary's syllables; pace_vs_speaker reads the nuclei
  // beside them (docs/analysis.md, "Pace").
  const measures = parts[PART.measures] as LineMeasure[];

  stage('baselines', 0);
  if (!has(PART.baselines)) {
    const baselineLines: BaselineLine[] = measures.map((m) => ({
      speaker: m.speaker,
      speech_seconds: m.speech_end - m.speech_start,
      pitch_hz: m.prosody.pitch_hz,
      pitch_range_st: m.prosody.pitch_range_st,
      energy_db: m.prosody.energy_db,
      energy_range_db: m.prosody.energy_range_db,
      pitch_perturbation: m.prosody.pitch_perturbation,
      syllables: m.syllables,
      articulation_seconds: m.articulation_seconds,
    }));
    save(PART.paceShifts, paceShifts(measures));
    save(PART.baselines, speakerBaselines(baselineLines));
  }
  stage('baselines', 1);
  const baselines = parts[PART.baselines] as ReturnType<typeof speakerBaselines>;

  // Each line's pace against the speaker's other lines, from both counts (delivery/pace-vs-speaker.ts).
  const paces = paceAgainstSpeaker(measures);
  const published = new Map((request.published ?? []).map((l) => [l.id, l]));
  let finished = done.size;
  let batch: AnalysisSegment[] = [];
  for (const [i, m] of measures.entries()) {
    if (done.has(m.id)) continue;
    signal?.throwIfAborted();
    const span = { start: m.start, end: m.end };
    const measured = kit.quality(lineQualities[i]);
    const mos = await kit.perceivedQuality(pcm.subarray(Math.floor(m.start * SAMPLE_RATE), Math.ceil(m.end * SAMPLE_RATE)), signal);
    batch.push({
      id: m.id,
      speaker: m.speaker,
      start: m.start,
      end: m.end,
      speech_start: m.speech_start,
      speech_end: m.speech_end,
      text: m.text,
      prosody: { ...m.prosody, ...relativeToSpeaker(m.prosody, baselines[m.speaker]), pace_vs_speaker: paces[i]!, source: 'measured' },
      quality: { ...measured, mos, score: Math.round(kit.qualityScore(measured, mos) * 1000) / 1000, sources: mos ? ['measured', 'heard'] : ['measured'] },
      ambience: kit.ambience(tags, span, speech, levels),
      perception: null,
      delivery: null,
      emphasis: [],
    });
    published.set(m.id, batch[batch.length - 1]!);
    finished++;
    if (batch.length >= LINE_BATCH) {
      emit({ type: 'lines', lines: batch });
      batch = [];
    }
    stage('quality', finished / measures.length);
  }
  if (batch.length) emit({ type: 'lines', lines: batch });
  stage('quality', 1);

  const audience = (parts[PART.audience] as AudiencePart).events;
  await listenToLines(measures, published, baselines, audience, pcm, kit.listener(), emit, stage, signal);
  const segments = measures.map((m) => published.get(m.id)!).filter(Boolean);

  stage('speakers', 0);
  if (!has(PART.speakers)) save(PART.speakers, speakerProfiles(segments, baselines, audience));
  stage('speakers', 1);

  stage('moments', 0);
  const lineWords = new Map<number, LineWords>(measures.map((m) => [m.id, { words: m.words ?? [], sentence_ends: m.sentence_ends ?? [] }]));
  if (!has(PART.moments)) save(PART.moments, findMoments(segments, lineWords, audience));
  stage('moments', 1);

  stage('summary', 0);
  if (!has(PART.summary)) {
    const profiles = parts[PART.speakers] as Record<string, SpeakerProfile>;
    const written = writeSummary({
      duration,
      segments,
      speakers: profiles,
      moments: parts[PART.moments] as Moment[],
      conditions: parts[PART.conditions] as Condition[],
      events: audience,
    });
    save(PART.speakers, Object.fromEntries(Object.entries(profiles).map(([k, p]) => [k, { ...p, summary: written.speakers[k] ?? '' }])));
    save(PART.summary, written.summary);
  }
  stage('summary', 1);
  save(PART.warnings, kit.warnings);
}

/**
 * The listening stage: each published line not yet listened to gets its perception, delivery and emphasis,
 * and is published again whole (a batch per transaction), so a poll sees either the measured line or the
 * listened one, never a mix.
 */
async function listenToLines(
  measures: LineMeasure[],
  published: Map<number, AnalysisSegment>,
  baselines: Record<string, Baseline>,
  events: AudienceEvent[],
  pcm: Float32Array,
  listener: Listener,
  emit: (message: AnalysisMessage) => void,
  stage: (name: StageName, fraction: number) => void,
  signal?: AbortSignal,
): Promise<void> {
  stage('listening', 0);
  const hesitations = new Map<string, { count: number; seconds: number }>();
  for (const m of measures) {
    const h = hesitations.get(m.speaker) ?? { count: 0, seconds: 0 };
    h.count += m.prosody.hesitations;
    h.seconds += Math.max(0, m.speech_end - m.speech_start);
    hesitations.set(m.speaker, h);
  }
  // Every line's speech span, for the verdict's overlap rule (the same lines the moments stage reads).
  const all = measures.map((m) => published.get(m.id)).filter((s): s is AnalysisSegment => !!s);
  let batch: AnalysisSegment[] = [];
  for (const [i, m] of measures.entries()) {
    const segment = published.get(m.id);
    if (!segment || segment.perception) continue;
    signal?.throwIfAborted();
    const h = hesitations.get(m.speaker)!;
    const heard = await listener.listen(
      {
        segment,
        words: m.words ?? [],
        baseline: baselines[m.speaker],
        speaker_hesitations_per_minute: hesitationsPerMinute(h.count, h.seconds),
        events,
        spoilers: spoilers(segment, all, events),
        audio: pcm.subarray(Math.floor(m.start * SAMPLE_RATE), Math.ceil(m.end * SAMPLE_RATE)),
      },
      signal,
    );
    const listened: AnalysisSegment = { ...segment, perception: heard.perception, delivery: heard.delivery, emphasis: heard.emphasis };
    published.set(m.id, listened);
    batch.push(listened);
    if (batch.length >= LISTEN_BATCH) {
      emit({ type: 'lines', lines: batch });
      batch = [];
      stage('listening', (i + 1) / measures.length);
    }
  }
  if (batch.length) emit({ type: 'lines', lines: batch });
  stage('listening', 1);
}
