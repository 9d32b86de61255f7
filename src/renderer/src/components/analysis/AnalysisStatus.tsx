/**
 * The recording view's analysis section: what the analysis is doing (stage in words, progress), what it
 * found, what it could not do (warnings, a failure, a failed re-run while the last complete one is shown),
 * and the action to run it again.
 */
import { useStore } from 'zustand';
import type { Intelligence } from '../../../../shared/schemas/analysis';
import { isAnalysisActive, progressText } from '../../analysis/stages';
import type { AnalysisWatcher } from '../../analysis/watcher';
import { ProgressBar } from '../ProgressBar';
import './analysis.css';

function when(iso: string | null): string {
  if (!iso) return '';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
}

function foundText(intel: Intelligence): string {
  const issues = intel.segments.reduce((n, s) => n + s.quality.issues.length, 0);
  const parts = [
    `${intel.coverage.measured} of ${intel.coverage.segments} lines measured`,
    `${intel.conditions.length} ${intel.conditions.length === 1 ? 'condition' : 'conditions'}`,
    `${issues} line ${issues === 1 ? 'issue' : 'issues'}`,
    `${intel.events.length} ${intel.events.length === 1 ? 'event' : 'events'}`,
    ...(intel.moments.length
      ? [`${intel.moments.length} ${intel.moments.length === 1 ? 'moment' : 'moments'}`]
      : []),
  ];
  return parts.join(' · ');
}

export function AnalysisStatus({ watcher }: { watcher: AnalysisWatcher }) {
  const latest = useStore(watcher.store, (s) => s.latest);
  const shown = useStore(watcher.store, (s) => s.shown);
  const loadError = useStore(watcher.store, (s) => s.loadError);
  const starting = useStore(watcher.store, (s) => s.starting);
  const startError = useStore(watcher.store, (s) => s.startError);

  const intel = latest?.intelligence;
  const shownIntel = shown?.intelligence;
  const active = intel ? isAnalysisActive(intel.status) : false;
  const olderShown = !!shownIntel && !!intel && shownIntel.run_id !== intel.run_id;
  const status = intel?.status ?? 'loading';

  return (
    <div className="analysis-status" data-testid="analysis-status" data-status={status}>
      <h4>
        Analysis{' '}
        {intel && (
          <span className={`badge ${intel.status}`}>
            {intel.status === 'none' ? 'not run' : intel.status}
          </span>
        )}
      </h4>
      {!intel && !loadError && <div className="hint">Loading…</div>}
      {intel && active && (
        <>
          <div data-testid="analysis-stage" data-stage={intel.stage}>
            {progressText(intel)}
          </div>
          <ProgressBar
            value={intel.status === 'queued' ? null : intel.progress}
            label={intel.status === 'queued' ? 'Queued' : 'Analysing'}
            testId="analysis-progress"
          />
          {olderShown && shownIntel?.status === 'complete' && (
            <div className="hint">
              Showing the previous analysis ({when(shownIntel.completed_at)}) until this run completes.
            </div>
          )}
        </>
      )}
      {intel?.status === 'none' && <div className="hint">This recording has not been analysed yet.</div>}
      {(intel?.status === 'failed' || intel?.status === 'unavailable') && (
        <div
          className={intel.status === 'failed' ? 'analysis-error' : 'hint'}
          role="alert"
          data-testid="analysis-error"
        >
          {intel.error ??
            (intel.status === 'failed' ? 'The analysis failed.' : 'This recording cannot be analysed.')}
        </div>
      )}
      {shownIntel?.status === 'complete' && !active && (
        <div className="hint" data-testid="analysis-found">
          {foundText(shownIntel)}
          <br />
          Analysed {when(shownIntel.completed_at)} in {shownIntel.timings.total.toFixed(1)} s · method{' '}
          {shownIntel.version}
        </div>
      )}
      {shownIntel?.last_failure && (
        <div className="analysis-error" role="alert" data-testid="analysis-last-failure">
          The latest re-run failed ({when(shownIntel.last_failure.failed_at)}):{' '}
          {shownIntel.last_failure.error} Showing the last complete analysis.
        </div>
      )}
      {shownIntel && shownIntel.warnings.length > 0 && (
        <ul
          className="analysis-warnings"
          data-testid="analysis-warnings"
          aria-label="What could not be analysed"
        >
          {shownIntel.warnings.map((w) => (
            <li key={w}>{w}</li>
          ))}
        </ul>
      )}
      {loadError && (
        <div className="analysis-error" role="alert">
          Cannot load the analysis: {loadError}
        </div>
      )}
      {intel && intel.status !== 'unavailable' && (
        <div>
          <button
            onClick={() => void watcher.rerun()}
            disabled={starting || active}
            data-testid="analysis-rerun"
          >
            {intel.status === 'none' ? 'Analyse' : 'Re-run analysis'}
          </button>
        </div>
      )}
      {startError && (
        <div className="analysis-error" role="alert" data-testid="analysis-start-error">
          {startError}
        </div>
      )}
    </div>
  );
}
