import type {
  AmbienceSpan,
  AnalysisEvent,
  AnalysisSegment,
  AudienceEvent,
  Baseline,
  Condition,
  Intelligence,
  Moment,
  MusicSpan,
  PaceShiftEvent,
  SpeakerProfile,
  AnalysisSummary,
} from '../../shared/schemas/analysis';
import type { RunRecord } from '../storage/analysis-store';
import { mosOnScale } from '../speech/quality/mos-scale';
import { ANALYSIS_VERSION } from './stages';

/** Names of a run's stored recording-level parts (one per stage that produces one). */
export const PART = {
  speech: 'speech',
  audience: 'audience',
  noise: 'noise',
  lineQuality: 'line_quality',
  conditions: 'conditions',
  measures: 'measures',
  baselines: 'baselines',
  paceShifts: 'pace_shifts',
  speakers: 'speakers',
  moments: 'moments',
  summary: 'summary',
  warnings: 'warnings',
} as const;

export interface AudiencePart {
  events: AudienceEvent[];
  music: MusicSpan[];
  ambience_profile: AmbienceSpan[];
}

export interface DocumentInput {
  duration: number;
  /** Lines in the transcript (0 before it exists). */
  transcriptLines: number;
  /** The session is still being transcribed: the analysis will be queued when it completes. */
  awaitingTranscript: boolean;
  /** Why the recording cannot be analysed although never run (no speech in the transcript). */
  unavailable: string | null;
  run: RunRecord | null;
  parts: Record<string, unknown>;
  lines: AnalysisSegment[];
  lastFailure: Intelligence['last_failure'];
}

const EMPTY_SUMMARY = { overview: '', speakers: [], watch_outs: [], watch_out_items: [] };

function onScale(line: AnalysisSegment): AnalysisSegment {
  const mos = line.quality.mos && mosOnScale(line.quality.mos);
  return mos === line.quality.mos ? line : { ...line, quality: { ...line.quality, mos } };
}

function eventTime(e: AnalysisEvent): number {
  return e.type === 'pace_shift' ? e.at : e.start;
}

/**
 * The `intelligence` object of the Analysis document from a run's stored parts and lines. Fields of stages
 * that have not run yet are present and empty, so a client can read a running document like a finished one.
 */
export function buildIntelligence(input: DocumentInput): Intelligence {
  const { run, parts } = input;
  const audience = parts[PART.audience] as AudiencePart | undefined;
  const paceShifts = (parts[PART.paceShifts] as PaceShiftEvent[] | undefined) ?? [];
  const events: AnalysisEvent[] = [...(audience?.events ?? []), ...paceShifts].sort((a, b) => eventTime(a) - eventTime(b));
  const status: Intelligence['status'] = run ? run.status : input.unavailable ? 'unavailable' : 'none';
  const stage = run ? run.stage : input.unavailable ? 'unavailable' : input.awaitingTranscript ? 'awaiting_transcript' : 'none';
  return {
    status,
    stage,
    progress: run?.progress ?? 0,
    run_id: run?.run_id ?? null,
    version: run?.version ?? ANALYSIS_VERSION,
    error: run?.error ?? (input.unavailable && !run ? input.unavailable : null),
    duration: run?.duration ?? input.duration,
    // Runs stored before analysis 1.2.0 may hold DNSMOS scores off the 1–5 scale: served on it (mos-scale.ts).
    segments: input.lines.map(onScale),
    events,
    speakers: (parts[PART.speakers] as Record<string, SpeakerProfile> | undefined) ?? {},
    moments: (parts[PART.moments] as Moment[] | undefined) ?? [],
    recovered: [],
    music: audience?.music ?? [],
    ambience_profile: audience?.ambience_profile ?? [],
    baselines: (parts[PART.baselines] as Record<string, Baseline> | undefined) ?? {},
    coverage: {
      segments: input.transcriptLines,
      measured: input.lines.length,
      // A model listened: DNSMOS scored the line, or a model-based listener heard it (never the estimate).
      listened: input.lines.filter((l) => l.quality.mos !== null || l.perception?.source === 'heard').length,
    },
    conditions: (parts[PART.conditions] as Condition[] | undefined) ?? [],
    summary: (parts[PART.summary] as AnalysisSummary | undefined) ?? EMPTY_SUMMARY,
    timings: run?.timings ?? { total: 0, stages: {} },
    warnings: (parts[PART.warnings] as string[] | undefined) ?? [],
    last_failure: input.lastFailure,
    started_at: run?.started_at ?? null,
    completed_at: run?.completed_at ?? null,
  };
}
