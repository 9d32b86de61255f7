import type { Session } from '../api/types';

/** Stages in which a recording's processing waits on the team server rather than works (docs/jobs.md, "Job stages"). */
const WAITING_STAGES: Record<string, string> = {
  'waiting for a worker': 'Waiting for a worker',
  'waiting for storage': 'Waiting for storage',
};

/** The words beside a recording's progress bar while it is queued or transcribed. */
export function processingLabel(session: Pick<Session, 'status' | 'stage'>): string {
  if (session.status === 'queued') return 'Queued';
  return (session.stage && WAITING_STAGES[session.stage]) || 'Transcribing';
}

/** A recording whose processing waits (for a worker, for storage): its bar shows no progress moving. */
export function processingWaits(session: Pick<Session, 'status' | 'stage'>): boolean {
  return session.status === 'queued' || (!!session.stage && session.stage in WAITING_STAGES);
}
