/**
 * Follows one recording's analysis for the recording view: loads the Analysis document, polls every few
 * seconds while a run is queued or running and stops when it settles or the view closes, and starts re-runs.
 * While a re-run works, the last complete document stays on screen (its markers and line values) and only
 * the progress comes from the new run; a first run is shown as it fills in, line by line.
 */
import { createStore } from 'zustand/vanilla';
import type { AnalysisDocument } from '../../../shared/schemas/analysis';
import type { ApiClient } from '../api/client';
import { messageOf } from '../api/errors';
import { isAnalysisActive } from './stages';

export const ANALYSIS_POLL_MS = 3000;

export interface AnalysisState {
  /** The newest run's document, as last polled. */
  latest: AnalysisDocument | null;
  /** The document whose markers and values are on screen. */
  shown: AnalysisDocument | null;
  /** Why the last load failed (the service unreachable…); polling goes on. */
  loadError: string | null;
  /** A re-run request is on its way. */
  starting: boolean;
  /** Why the last re-run request was refused (409 while the transcript is not complete…). */
  startError: string | null;
  polling: boolean;
}

/** Which document to show: the newest, except that a complete one stays while a newer run is still working. */
export function documentToShow(
  latest: AnalysisDocument,
  shownBefore: AnalysisDocument | null,
): AnalysisDocument {
  const intel = latest.intelligence;
  if (!isAnalysisActive(intel.status)) return latest;
  if (
    shownBefore &&
    shownBefore.intelligence.status === 'complete' &&
    shownBefore.intelligence.run_id !== intel.run_id
  )
    return shownBefore;
  return latest;
}

export type AnalysisApi = Pick<ApiClient, 'getIntelligence' | 'startAnalysis' | 'listAnalysisRuns'>;

export function createAnalysisWatcher(
  api: AnalysisApi,
  sessionId: string,
  options: { pollMs?: number } = {},
) {
  const pollMs = options.pollMs ?? ANALYSIS_POLL_MS;
  const store = createStore<AnalysisState>()(() => ({
    latest: null,
    shown: null,
    loadError: null,
    starting: false,
    startError: null,
    polling: false,
  }));
  let controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let loading: AbortSignal | null = null;
  let first = true;

  const stopped = () => controller.signal.aborted;

  function schedule(delay: number): void {
    clearTimeout(timer);
    if (stopped()) return;
    store.setState({ polling: true });
    timer = setTimeout(() => void load(), delay);
  }

  /** On opening a recording whose re-run is under way: the newest complete run, to show meanwhile. */
  async function lastComplete(signal: AbortSignal): Promise<AnalysisDocument | null> {
    const runs = await api.listAnalysisRuns(sessionId, signal);
    const complete = runs.find((r) => r.status === 'complete');
    return complete ? api.getIntelligence(sessionId, { runId: complete.run_id }, signal) : null;
  }

  async function load(): Promise<void> {
    // A load belongs to the controller it started under: after a stop it neither writes nor reschedules.
    const { signal } = controller;
    if (loading === signal || signal.aborted) return;
    loading = signal;
    try {
      const latest = await api.getIntelligence(sessionId, {}, signal);
      let before = store.getState().shown;
      if (first && isAnalysisActive(latest.intelligence.status))
        before = await lastComplete(signal).catch(() => null);
      if (signal.aborted) return;
      first = false;
      store.setState({ latest, shown: documentToShow(latest, before), loadError: null });
      if (isAnalysisActive(latest.intelligence.status)) schedule(pollMs);
      else store.setState({ polling: false });
    } catch (error) {
      if (signal.aborted) return;
      store.setState({ loadError: messageOf(error) });
      schedule(pollMs);
    } finally {
      if (loading === signal) loading = null;
    }
  }

  async function rerun(): Promise<void> {
    if (store.getState().starting || stopped()) return;
    store.setState({ starting: true, startError: null });
    try {
      const run = await api.startAnalysis(sessionId);
      if (stopped()) return;
      const latest = store.getState().latest;
      if (latest) {
        // Show the new run's state at once; the next poll brings its document.
        const intelligence = {
          ...latest.intelligence,
          status: run.status,
          stage: run.stage,
          progress: run.progress,
          run_id: run.run_id,
          error: run.error,
        };
        const next = { ...latest, intelligence };
        store.setState((s) => ({ latest: next, shown: documentToShow(next, s.shown) }));
      }
      store.setState({ starting: false });
      schedule(0);
    } catch (error) {
      if (!stopped()) store.setState({ starting: false, startError: messageOf(error) });
    }
  }

  return {
    store,
    /** Loads and, while the run works, polls; may follow a stop (React mounts effects twice in development). */
    start(): void {
      if (stopped()) controller = new AbortController();
      void load();
    },
    rerun,
    stop(): void {
      controller.abort();
      clearTimeout(timer);
      store.setState({ polling: false });
    },
  };
}

export type AnalysisWatcher = ReturnType<typeof createAnalysisWatcher>;
