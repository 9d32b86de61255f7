/**
 * The selected line's analysis: prosody and quality values with their units and what backs each one
 * (measured, heard…), values relative to the speaker's usual delivery, pauses, perceived quality (MOS)
 * when a model scored the line, issues and background.
 */
import { useEffect, useMemo } from 'react';
import { useStore } from 'zustand';
import type { AnalysisSegment, Baseline, Source } from '../../../../shared/schemas/analysis';
import type { TranscriptSegment } from '../../api/types';
import { lineSections, type ValueRow } from '../../analysis/line-values';
import { sourceMeaning, sourceName } from '../../analysis/sources';
import { isAnalysisActive, progressText } from '../../analysis/stages';
import { kindStyle } from '../../markers/kinds';
import { glyphStyle } from '../../markers/shapes';
import { speakerColor } from '../../lib/format';
import { isTypingTarget } from '../../lib/shortcuts';
import { formatReadout, type Timebase } from '../../lib/timecode';
import './analysis.css';
import type { RecordingAnalysis } from './use-recording-analysis';

function SourceTag({ source }: { source: Source | null }) {
  if (!source) return null;
  return (
    <span className={`source source-${source}`} title={sourceMeaning(source)} data-testid="value-source">
      {sourceName(source)}
    </span>
  );
}

function Rows({ rows, testId }: { rows: ValueRow[]; testId: string }) {
  return (
    <dl className="line-values" data-testid={testId}>
      {rows.map((r) => (
        <div
          key={r.key}
          className="line-value"
          data-testid="line-value"
          data-key={r.key}
          data-raw={String(r.raw)}
          title={r.hint}
        >
          <dt>{r.label}</dt>
          <dd>
            <span className="num">{r.text}</span>
            <SourceTag source={r.source} />
          </dd>
        </div>
      ))}
    </dl>
  );
}

export function LinePanel(props: {
  line: TranscriptSegment;
  analysis: AnalysisSegment | null;
  baseline: Baseline | undefined;
  /** Why there is no analysis of the line, when there is none. */
  pendingText: string;
  timebase: Timebase | null;
  speakerName: (label: string) => string;
  onSeek: (t: number) => void;
  onClose: () => void;
}) {
  const { line, analysis, baseline, pendingText, timebase, speakerName, onSeek, onClose } = props;
  const sections = useMemo(() => (analysis ? lineSections(analysis, baseline) : null), [analysis, baseline]);
  const t = (s: number) => formatReadout(s, timebase);

  return (
    <aside
      className="line-panel"
      data-testid="line-panel"
      data-segment-id={line.id}
      aria-label="Line analysis"
    >
      <div className="line-panel-head">
        <h4>Line analysis</h4>
        <button className="ghost" onClick={onClose} aria-label="Close line analysis" title="Close">
          ×
        </button>
      </div>
      <div className="line-panel-who">
        <span style={{ color: speakerColor(line.speaker), fontWeight: 600 }}>
          {speakerName(line.speaker)}
        </span>{' '}
        <button className="link num" onClick={() => onSeek(line.start)} title="Go to the start of this line">
          {t(line.start)} – {t(line.end)}
        </button>
      </div>
      <div className="line-panel-text">{line.text}</div>
      {!sections ? (
        <div className="hint" data-testid="line-pending">
          {pendingText}
        </div>
      ) : (
        <>
          {sections.perception ? (
            <section data-testid="line-perception">
              <h5>How it sounds</h5>
              {sections.perception.note && <p className="line-note">{sections.perception.note}</p>}
              {sections.perception.labels.length > 0 && (
                <ul className="line-labels" data-testid="line-labels">
                  {sections.perception.labels.map((l) => {
                    const style = kindStyle(`delivery.${l.type}`);
                    return (
                      <li key={l.type} data-type={l.type}>
                        <span style={glyphStyle(style.shape, style.colour, 10)} aria-hidden="true" />
                        {style.label} <SourceTag source={l.source} />
                      </li>
                    );
                  })}
                </ul>
              )}
              <Rows rows={sections.perception.rows} testId="line-perception-values" />
              {sections.perception.emphasis.length > 0 && (
                <div className="hint">Emphasis: {sections.perception.emphasis.join(', ')}</div>
              )}
              {sections.perception.reactions.length > 0 && (
                <div className="hint">Reactions: {sections.perception.reactions.join(', ')}</div>
              )}
            </section>
          ) : (
            <div className="hint" data-testid="line-not-listened">
              Not listened to yet: emotion and delivery come with the listening stage.
            </div>
          )}
          {sections.issues.length > 0 && (
            <section>
              <h5>Issues</h5>
              <ul className="line-issues" data-testid="line-issues">
                {sections.issues.map((i, k) => {
                  const style = kindStyle(`issue.${i.type}`);
                  return (
                    <li key={k} data-type={i.type}>
                      <b style={{ color: style.colour }}>{style.label}</b> {Math.round(i.severity * 100)}% ·{' '}
                      {i.evidence} <SourceTag source={i.source} />
                    </li>
                  );
                })}
              </ul>
            </section>
          )}
          <section>
            <h5>Voice and pace</h5>
            <Rows rows={sections.prosody} testId="line-prosody" />
          </section>
          <section>
            <h5>Compared with {speakerName(line.speaker)}’s usual</h5>
            {baseline ? null : <div className="hint">No baseline for this speaker.</div>}
            <Rows rows={sections.relative} testId="line-relative" />
          </section>
          <section>
            <h5>Pauses ({sections.pauses.length})</h5>
            {sections.pauses.length === 0 ? (
              <div className="hint">No pauses inside the line.</div>
            ) : (
              <ul className="line-pauses" data-testid="line-pauses">
                {sections.pauses.map((p, k) => (
                  <li key={k}>
                    <button className="link num" onClick={() => onSeek(p.start)}>
                      {t(p.start)}
                    </button>{' '}
                    <span className="num">{p.duration.toFixed(2)} s</span>
                    {p.afterWord ? ` after “${p.afterWord}”` : ' at the start'}
                    {p.filled ? ' · filled' : ''}
                    {p.sentenceEnd ? ' · sentence end' : ''}
                  </li>
                ))}
              </ul>
            )}
          </section>
          <section>
            <h5>Quality</h5>
            <Rows rows={sections.quality} testId="line-quality" />
          </section>
          <section>
            <h5>Perceived quality (MOS)</h5>
            {sections.mos ? (
              <Rows rows={sections.mos} testId="line-mos" />
            ) : (
              <div className="hint" data-testid="line-no-mos">
                Not scored: no quality model listened to this line.
              </div>
            )}
          </section>
          <section>
            <h5>Background</h5>
            <Rows rows={sections.ambience} testId="line-ambience" />
          </section>
        </>
      )}
    </aside>
  );
}

/** The panel for the line selected in a recording view (a hint when none is: the column stays). */
export function SelectedLinePanel(props: {
  analysis: RecordingAnalysis;
  segments: readonly TranscriptSegment[];
  timebase: Timebase | null;
  speakerName: (label: string) => string;
  onSeek: (t: number) => void;
}) {
  const { analysis, segments, timebase, speakerName, onSeek } = props;
  const shown = useStore(analysis.watcher.store, (s) => s.shown);
  const { selectedLine, selectLine } = analysis;
  // Escape closes the panel, unless typing or a dialog (which handles its own Escape) is open.
  useEffect(() => {
    if (selectedLine === null) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape' || isTypingTarget(e.target as HTMLElement)) return;
      if (document.querySelector('[aria-modal=true]')) return;
      selectLine(null);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [selectedLine, selectLine]);
  const line =
    analysis.selectedLine === null ? undefined : segments.find((s) => s.id === analysis.selectedLine);
  if (!line)
    return (
      <aside className="line-panel empty" data-testid="line-panel-empty" aria-label="Line analysis">
        <div className="line-panel-head">
          <h4>Line analysis</h4>
        </div>
        <div className="hint">Click a line to see its voice, pace, pauses and quality here.</div>
      </aside>
    );
  const intel = shown?.intelligence;
  const pending = !intel
    ? 'Loading the analysis…'
    : isAnalysisActive(intel.status)
      ? `Not measured yet: ${progressText(intel).toLowerCase()}.`
      : intel.status === 'complete'
        ? 'The analysis has no values for this line.'
        : 'This recording has no analysis to show.';
  return (
    <LinePanel
      line={line}
      analysis={analysis.selectedAnalysis}
      baseline={intel?.baselines[line.speaker]}
      pendingText={pending}
      timebase={timebase}
      speakerName={speakerName}
      onSeek={onSeek}
      onClose={() => analysis.selectLine(null)}
    />
  );
}
