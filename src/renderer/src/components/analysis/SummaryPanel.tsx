/**
 * The written summary: the overview, each speaker's notes, and the watch-outs, whose time ranges move the
 * playhead when clicked.
 */
import type { Intelligence } from '../../../../shared/schemas/analysis';
import { rangeText, watchOutRows } from '../../analysis/profile';
import { isAnalysisActive, progressText } from '../../analysis/stages';
import { humanize, problemStyle } from '../../markers/kinds';
import { speakerColor } from '../../lib/format';
import { nameLabels } from '../../lib/speaker-names';

export function SummaryPanel(props: {
  intel: Intelligence;
  speakerName: (label: string) => string;
  formatTime: (t: number) => string;
  onSeek: (t: number) => void;
}) {
  const { intel, formatTime, onSeek } = props;
  const { summary } = intel;
  // The service writes labels (S1); the studio names them as the transcript and exports do.
  const labels = summary.speakers.map((s) => s.speaker);
  const speakerName = props.speakerName;
  const named = (text: string) => nameLabels(text, labels, speakerName);
  const watchOuts = watchOutRows(summary);
  if (!summary.overview && summary.speakers.length === 0 && watchOuts.length === 0) {
    return (
      <div className="hint" data-testid="summary-pending">
        {isAnalysisActive(intel.status)
          ? `The summary is written at the end of the analysis (${progressText(intel).toLowerCase()}).`
          : 'This analysis has no summary.'}
      </div>
    );
  }
  return (
    <div className="summary-panel" data-testid="summary-panel">
      {summary.overview && (
        <section>
          <h5>Overview</h5>
          <p data-testid="summary-overview">{named(summary.overview)}</p>
        </section>
      )}
      {summary.speakers.length > 0 && (
        <section>
          <h5>Speakers</h5>
          <ul className="summary-speakers">
            {summary.speakers.map((s) => (
              <li key={s.speaker} data-testid="summary-speaker" data-speaker={s.speaker}>
                <span className="swatch" style={{ background: speakerColor(s.speaker) }} />
                {/* The service's notes usually open with the speaker's label: the name takes its place. */}
                <b>{speakerName(s.speaker)}</b>{' '}
                {named(s.summary.startsWith(`${s.speaker} `) ? s.summary.slice(s.speaker.length + 1) : s.summary)}
              </li>
            ))}
          </ul>
        </section>
      )}
      <section>
        <h5>Watch-outs ({watchOuts.length})</h5>
        {watchOuts.length === 0 ? (
          <div className="hint">Nothing to watch out for.</div>
        ) : (
          <ul className="watch-outs" data-testid="watch-outs">
            {watchOuts.map((w, i) => (
              <li key={i} data-testid="watch-out" data-kind={w.kind}>
                {w.label ? (
                  // The kind once, how much, then the ranges as buttons (the sentence would repeat both).
                  <>
                    <span className="watch-out-kind" style={{ color: problemStyle(w.kind).colour }}>
                      {w.label}
                    </span>
                    {w.detail ? ` (${named(w.detail)})` : ''}
                  </>
                ) : (
                  <>
                    {w.kind && (
                      <span className="watch-out-kind" style={{ color: problemStyle(w.kind).colour }}>
                        {humanize(w.kind)}
                      </span>
                    )}{' '}
                    {named(w.text)}
                  </>
                )}
                {w.ranges.length > 0 && (
                  <span className="watch-out-ranges">
                    {w.ranges.map((r, k) => (
                      <button
                        key={k}
                        className="link num"
                        data-testid="watch-out-range"
                        data-start={r.start}
                        data-end={r.end}
                        onClick={() => onSeek(r.start)}
                        title="Move the playhead here"
                      >
                        {rangeText(formatTime, r)}
                      </button>
                    ))}
                  </span>
                )}
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}
