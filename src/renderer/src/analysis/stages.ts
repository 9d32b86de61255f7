/**
 * What the analysis is doing, in words: human names for the service's stage ids (src/service/analysis/
 * stages.ts), and the status line the recording view shows.
 */
import type { AnalysisStatus, Intelligence } from '../../../shared/schemas/analysis';
import { humanize } from '../markers/kinds';

const STAGE_NAMES: Record<string, string> = {
  none: 'Not analysed yet',
  awaiting_transcript: 'Waiting for the transcript',
  queued: 'Waiting to start',
  decoding: 'Decoding the audio',
  speech: 'Finding where people speak',
  events: 'Listening for applause, laughter and music',
  conditions: 'Checking recording conditions',
  prosody: 'Measuring pitch, level and pace',
  baselines: 'Learning each speaker’s usual delivery',
  quality: 'Measuring each line’s quality',
  // The analysis' later stages (listening, speakers, moments, summary).
  listening: 'Listening to how each line sounds',
  perception: 'Listening to how each line sounds',
  speakers: 'Profiling the speakers',
  moments: 'Finding moments worth a look',
  summary: 'Writing the summary',
  complete: 'Complete',
  failed: 'Failed',
  unavailable: 'Not available',
};

export function stageName(stage: string): string {
  return STAGE_NAMES[stage] ?? humanize(stage);
}

/** The analysis is still working: the view polls and shows progress. */
export function isAnalysisActive(status: AnalysisStatus): boolean {
  return status === 'queued' || status === 'running';
}

/** One line for the status area, e.g. "Measuring each line’s quality · 40 of 120 lines". */
export function progressText(intel: Pick<Intelligence, 'status' | 'stage' | 'coverage'>): string {
  if (intel.status === 'queued') return stageName('queued');
  // Marked running, before its first stage has reported.
  if (intel.stage === 'queued') return 'Starting';
  const name = stageName(intel.stage);
  const { measured, segments } = intel.coverage;
  if (intel.status === 'running' && segments > 0 && measured > 0)
    return `${name} · ${measured} of ${segments} lines`;
  return name;
}
