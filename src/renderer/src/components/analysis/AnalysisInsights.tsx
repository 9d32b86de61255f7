/**
 * The Summary and Speakers tabs of the recording view: the analysis document shown (the watcher's), laid
 * out by SummaryPanel or SpeakerInsights. Jumps go through the view: the playhead, and the line panel.
 */
import { useStore } from 'zustand';
import type { Timebase } from '../../lib/timecode';
import type { PlayerStore } from '../../state/player-store';
import { Loading } from '../States';
import { SpeakerInsights } from './SpeakerInsights';
import { SummaryPanel } from './SummaryPanel';
import type { RecordingAnalysis } from './use-recording-analysis';

export type InsightTab = 'summary' | 'speakers';

export function AnalysisInsights(props: {
  tab: InsightTab;
  analysis: RecordingAnalysis;
  player: PlayerStore | null;
  speakerName: (label: string) => string;
  formatTime: (t: number) => string;
  onSeek: (t: number) => void;
  timebase?: Timebase | null;
}) {
  const { tab, analysis, player, speakerName, formatTime, onSeek, timebase } = props;
  const shown = useStore(analysis.watcher.store, (s) => s.shown);
  const loadError = useStore(analysis.watcher.store, (s) => s.loadError);
  if (!shown)
    return loadError ? <div className="hint">{loadError}</div> : <Loading label="Loading the analysis…" />;
  const intel = shown.intelligence;
  return (
    <div className="insights-scroll" data-testid={`insights-${tab}`}>
      {tab === 'summary' ? (
        <SummaryPanel intel={intel} speakerName={speakerName} formatTime={formatTime} onSeek={onSeek} />
      ) : (
        <SpeakerInsights
          intel={intel}
          player={player}
          speakerName={speakerName}
          formatTime={formatTime}
          timebase={timebase}
          onLine={(id, start) => {
            onSeek(start);
            analysis.selectLine(id);
          }}
        />
      )}
    </div>
  );
}
